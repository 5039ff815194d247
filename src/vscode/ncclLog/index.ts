// The editor features for NCCL's own logs: the nccl-log language given by content, the analysis of
// every open log (Problems panel, the summary lens), hovers, Analyze NCCL Log's summary documents,
// and logs linked to the hosts they name. Colours come from syntaxes/nccl-log.tmLanguage.json.
import * as vscode from 'vscode';
import { Languages, NCCL_LOG_SUMMARY_SCHEME } from '../../constants';
import { DETECT_WITHIN_LINES, ncclLogNearTop } from '../../core/ncclLog/detect';
import { registerContentLanguageDetection } from '../editor/contentLanguage';
import { HostModel } from '../hosts/hostModel';
import { registerNcclLogLens } from './codeLens';
import { NcclLogDocuments } from './documents';
import { registerNcclLogHover } from './hover';
import { comparisonsOfLog, linkMatchingHosts } from './links';
import { NcclLogSummaryDocuments } from './summaryDocuments';

const SOCKET_FALLBACK = 'nccl.socket-fallback';

export interface NcclLogEditor {
  readonly documents: NcclLogDocuments;
  readonly summaries: NcclLogSummaryDocuments;
}

export function registerNcclLogEditor(
  model: HostModel,
  log: vscode.LogOutputChannel,
  own: <T extends vscode.Disposable>(registration: T) => T,
): NcclLogEditor {
  const rdmaOf = (uri: string) =>
    comparisonsOfLog(model, uri)
      .filter((c) => c.comparison.findings.some((f) => f.id === SOCKET_FALLBACK))
      .flatMap((c) => c.comparison.rdmaPorts.map((p) => `${p} on ${c.host.label}`));
  const documents = own(new NcclLogDocuments(log, rdmaOf));
  const summaries = own(new NcclLogSummaryDocuments());
  own(vscode.workspace.registerTextDocumentContentProvider(NCCL_LOG_SUMMARY_SCHEME, summaries));
  own(vscode.languages.registerDocumentLinkProvider({ scheme: NCCL_LOG_SUMMARY_SCHEME }, summaries));
  own(registerNcclLogHover());
  own(registerNcclLogLens(documents, model));
  // A log whose host names match diagnosed hosts is compared with them as soon as both are known.
  const link = () => {
    for (const doc of vscode.workspace.textDocuments) {
      const summary = documents.get(doc.uri)?.analysis.summary;
      if (!summary) continue;
      for (const host of linkMatchingHosts(model, { file: NcclLogDocuments.nameOf(doc.uri), uri: doc.uri.toString(), summary })) {
        log.info(`${NcclLogDocuments.nameOf(doc.uri)} names ${host.label}: compared with its diagnosis`);
      }
    }
  };
  own(documents.onDidAnalyze(link));
  own(
    model.onDidChange(() => {
      link();
      documents.refreshMarks();
    }),
  );
  registerContentLanguageDetection(
    {
      // Analyze NCCL Log's summary quotes NCCL's lines: it stays plain text, not a log of its own.
      id: Languages.ncclLog,
      what: 'an NCCL log',
      from: ['plaintext', 'log'],
      ignoreSchemes: [NCCL_LOG_SUMMARY_SCHEME],
      withinLines: DETECT_WITHIN_LINES,
      nearTop: ncclLogNearTop,
    },
    log,
    own,
  );
  return { documents, summaries };
}
