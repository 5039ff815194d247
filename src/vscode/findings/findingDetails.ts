// Findings' details as read-only documents (`gdr-doctor-finding:/<key>/<title>`), served from the host's
// latest diagnosis and redrawn when it changes, with code lenses to act: the quick fix on the state line,
// "open in the raw output" on each evidence line. The document is plain text: a host's lines are shown,
// never rendered; the lenses run our commands with registry keys only.
import * as vscode from 'vscode';
import { Commands, FINDING_SCHEME, Languages } from '../../constants';
import { commandTitle } from '../../core/probe/commandTitle';
import { isRelayedHostId } from '../fleet/fleetMembers';
import type { HostModel } from '../hosts/hostModel';
import { dateTime } from '../displayLocale';
import { DetailsDocument, findingDetailsText } from './detailsText';
import { FindingRef, FindingRefs, resolveFinding } from './findingRefs';

/** A slash would split the tab title into path segments: a division slash reads the same. */
const DIVISION_SLASH = '\u2215';

export class FindingDetails implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  readonly refs = new FindingRefs();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly model: HostModel) {
    const redraw = () => {
      for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === FINDING_SCHEME) this.changed.fire(doc.uri);
      this.lensesChanged.fire();
    };
    this.subscriptions = [
      new vscode.Disposable(model.onDidChange(redraw).dispose),
      vscode.workspace.registerTextDocumentContentProvider(FINDING_SCHEME, this),
      vscode.languages.registerCodeLensProvider({ scheme: FINDING_SCHEME }, this),
    ];
  }

  /** Opens a finding's details in a preview tab, titled with its few words and the host. */
  async show(key: string, title: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: FINDING_SCHEME, path: `/${key}/${title.replace(/\//g, DIVISION_SLASH)}` });
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== Languages.findingDetails) doc = await vscode.languages.setTextDocumentLanguage(doc, Languages.findingDetails);
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.details(uri)?.doc.text ?? `${vscode.l10n.t("(this finding is no longer in the host's latest diagnosis)")}\n`;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const found = this.details(document.uri);
    if (!found) return [];
    const { key, ref, doc, fixes } = found;
    const at = (line: number) => new vscode.Range(line, 0, line, 0);
    const lenses = fixes.map(
      (id) =>
        new vscode.CodeLens(at(doc.fixLine), {
          title: vscode.l10n.t('$(tools) Apply fix: {0}', id),
          command: Commands.applyFindingFix,
          arguments: [key, id],
        }),
    );
    const report = this.model.status(ref.hostId).lastDiagnosed?.report;
    for (const e of doc.evidence) {
      const c = e.at ? report?.commands.find((x) => x.id === e.at?.commandId) : undefined;
      if (!e.at || !c) continue;
      const title =
        e.at.line !== null
          ? vscode.l10n.t('$(go-to-file) Open in {0}, line {1}', commandTitle(c), e.at.line + 1)
          : vscode.l10n.t('$(go-to-file) Open {0}', commandTitle(c));
      lenses.push(new vscode.CodeLens(at(e.line), { title, command: Commands.openRawOutputAt, arguments: [key, e.index] }));
    }
    return lenses;
  }

  /** The finding a details URI names, and its document; undefined once it is gone. */
  private details(uri: vscode.Uri): { key: string; ref: FindingRef; doc: DetailsDocument; fixes: string[] } | undefined {
    const key = uri.path.split('/').filter((p) => p !== '')[0];
    const ref = this.refs.get(key);
    const found = ref ? resolveFinding(this.model, ref) : undefined;
    if (!ref || !found) return undefined;
    const host = this.model.get(ref.hostId);
    const doc = findingDetailsText(found.finding, {
      hostLabel: host?.label ?? ref.hostId,
      when: dateTime(found.last.finishedAt),
      report: ref.source === 'diagnosis' ? found.last.report : null,
    });
    const fixes = isRelayedHostId(ref.hostId) ? [] : found.finding.fixes;
    return { key, ref, doc, fixes };
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
    this.lensesChanged.dispose();
  }
}
