// The summary at the top of an NCCL log: NCCL's version, the verdict and how many network connections
// used GPU Direct RDMA, how many lines are marked in Problems, whether the live reading stopped early,
// and the hosts the log was compared with. Each lens runs Analyze NCCL Log or Compare NCCL Log with Host.
import * as vscode from 'vscode';
import { Commands, Languages, ViewContainers } from '../../constants';
import { ANALYZE_TEXT, LENS_TEXT } from '../../core/ncclLog/editorText';
import { HostModel } from '../hosts/hostModel';
import { plainText } from '../plainText';
import { comparisonsOfLog } from './links';
import { NcclLogDocuments } from './documents';

export function registerNcclLogLens(documents: NcclLogDocuments, model: HostModel): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const subscriptions = [documents.onDidAnalyze(() => changed.fire()), model.onDidChange(() => changed.fire())];
  const provider: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: changed.event,
    provideCodeLenses(document) {
      const entry = documents.get(document.uri);
      if (!entry) return [];
      const top = new vscode.Range(0, 0, 0, 0);
      // A lens title turns `$(name)` into an icon: the host labels go through plainText().
      const lens = (title: string, command: string) => new vscode.CodeLens(top, { title: plainText(title), command });
      const { summary, marks, marksDropped, complete, readChars, lines } = entry.analysis;
      if (!summary) return [lens(ANALYZE_TEXT.notNccl(entry.analysis.file, lines), Commands.analyzeNcclLog)];
      const compared = comparisonsOfLog(model, document.uri.toString());
      return [
        lens(LENS_TEXT.headline(summary), Commands.analyzeNcclLog),
        lens(LENS_TEXT.problems(marks.length, marksDropped), 'workbench.actions.view.problems'),
        ...(complete ? [] : [lens(LENS_TEXT.stoppedEarly(readChars, lines), Commands.analyzeNcclLog)]),
        ...compared.map((c) =>
          lens(LENS_TEXT.compared(c.host.label, c.comparison.findings.length), `workbench.view.extension.${ViewContainers.main}`),
        ),
        lens(LENS_TEXT.compare, Commands.compareNcclLog),
      ];
    },
  };
  const registration = vscode.languages.registerCodeLensProvider({ language: Languages.ncclLog }, provider);
  return vscode.Disposable.from(registration, changed, ...subscriptions);
}
