// Show Topology (a diagnosed host's `nvidia-smi topo -m`, with its verdicts) and Analyze Topology in
// Editor (the active editor or its selection, parsed offline, the panel beside the editor). Both open
// the same panel.
import * as path from 'path';
import * as vscode from 'vscode';
import { acsMarks } from '../../core/diagnosis/acs';
import { hostDrawing } from '../../core/diagnosis/hostTopology';
import { virtState } from '../../core/diagnosis/virt';
import { parseTopo } from '../../core/parsers/topo';
import { readSettings } from '../config';
import { Ctx, targetHosts } from '../context';
import type { HostsNode } from '../tree/nodes';
import { topologyData } from './topologyData';
import { bannerCause, hostBanner, hostSides } from './gdrCells';
import { applyQuickFix } from '../fixes/applyFix';
import { isFixId } from '../../core/fixes';
import { showFinding } from '../findings/findingCommands';
import { isRelayedHostId } from '../fleet/fleetMembers';
import type { HostEntry } from '../hosts/hostModel';
import type { Finding } from '../../core/diagnosis';
import { notifyError, notifyInfo, notifyWarning } from '../notify';
import { ContextKeys } from '../../constants';
import { dateTime } from '../displayLocale';

export async function showTopologyCommand(ctx: Ctx, clicked?: HostsNode): Promise<void> {
  const [host] = await targetHosts(ctx, clicked, undefined, {
    many: false,
    title: vscode.l10n.t('Show the topology of which host?'),
    filter: (h) => ctx.model.status(h.id).lastDiagnosed !== undefined,
  });
  if (!host) return;
  const last = ctx.model.status(host.id).lastDiagnosed;
  if (!last) {
    void notifyInfo(vscode.l10n.t('{0} has not been diagnosed yet: run Diagnose first.', host.label));
    return;
  }
  const drawing = hostDrawing(last.report);
  if (!drawing) {
    void notifyWarning(
      vscode.l10n.t('{0}: the last diagnosis has neither a readable `nvidia-smi topo -m` output nor the PCI tree from sysfs.', host.label),
    );
    return;
  }
  const cause = bannerCause(last.diagnosis);
  const derived = drawing.derived ? vscode.l10n.t(', distances derived from the PCI tree (nvidia-smi topo -m not read)') : '';
  ctx.topology.show(
    topologyData({
      title: host.label,
      source: `${vscode.l10n.t('diagnosed {0}', dateTime(last.finishedAt))}${derived}`,
      topology: drawing.topology,
      pairs: last.diagnosis.pairs,
      suggestedEnv: last.diagnosis.suggestedEnv,
      nccl: readSettings().nccl,
      proof: ctx.model.status(host.id).proof,
      tree: drawing.tree,
      derived: drawing.derived,
      c2cGpus: drawing.c2cGpus,
      // Bridges that redirect peer traffic (pcie.acs-enabled) carry an ACS mark in the graph.
      bridgeMarks: acsMarks(last.report, last.diagnosis.pairs, virtState(last.report)),
      sides: hostSides(last.report, last.diagnosis, readSettings().nccl),
      banner: hostBanner(last.diagnosis, cause, !isRelayedHostId(host.id)),
    }),
    { onBanner: cause ? () => void bannerAction(ctx, host, cause, last.diagnosis.findings.indexOf(cause)) : undefined },
  );
  ctx.keys.set(ContextKeys.topologyShown, true);
}

/** The banner's button: the cause's quick fix (its confirmation and plan come first), else its details. */
async function bannerAction(ctx: Ctx, host: HostEntry, cause: Finding, index: number): Promise<void> {
  // An operator's fix (a Kubernetes node) is planned from the Clusters view, not applied over SSH here.
  const fix = cause.fixes.find(isFixId);
  if (fix && !isRelayedHostId(host.id)) await applyQuickFix(ctx, host, fix);
  else await showFinding(ctx, ctx.findings.refs.key({ hostId: host.id, source: 'diagnosis', path: [index] }));
}

export async function analyzeTopologyInEditorCommand(ctx: Ctx): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void notifyInfo(vscode.l10n.t('Open an editor holding `nvidia-smi topo -m` output first.'));
    return;
  }
  const selection = editor.selection;
  const useSelection = !selection.isEmpty;
  const text = editor.document.getText(useSelection ? selection : undefined);
  const parsed = parseTopo(text);
  const name = path.basename(editor.document.uri.path) || editor.document.uri.toString();
  if (!parsed.ok) {
    // Lines are counted from the selection's first line when only the selection was read.
    const line = parsed.error.line + (useSelection ? selection.start.line : 0);
    ctx.log.warn(`Analyze Topology: ${name}:${line}: ${parsed.error.message}`);
    void notifyError(vscode.l10n.t('Not readable as `nvidia-smi topo -m` output: {0}, line {1}: {2}', name, line, parsed.error.message));
    return;
  }
  // Beside the source, which stays open: the panel explains what the editor shows.
  ctx.topology.show(
    topologyData({
      title: name,
      source: useSelection ? vscode.l10n.t('selection of {0}, read offline', name) : vscode.l10n.t('{0}, read offline', name),
      topology: parsed.value,
      nccl: readSettings().nccl,
    }),
    { beside: true },
  );
}
