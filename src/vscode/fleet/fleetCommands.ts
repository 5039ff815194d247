// Add Fleet… (a name, a host list checked as it is typed, optionally a login node and the tool it
// runs), Remove Fleet, Diagnose Fleet. A fleet is stored in gdrDoctor.fleets; adding one connects
// nowhere: the user diagnoses it when ready.
import * as vscode from 'vscode';
import { expandHostList, foldHostList, HostListError } from '../../core/parsers/hostlist';
import { readSettings, updateFleets } from '../config';
import { Ctx } from '../context';
import type { HostsNode } from '../tree/nodes';
import { diagnoseFleet } from './fleetDiagnose';
import { FleetConfig, withFleetAdded, withFleetRemoved } from './fleetSettings';
import { RELAY_PREFERENCE, RELAY_TOOLS, RelayTool } from '../../core/transport';
import { notifyInfo } from '../notify';
import { destinationProblem } from '../ssh/destinationInput';
import { errorText } from '../../core/errorText';
import { forgetHostPasswords } from '../fixes/sudoSecrets';
import { relayedMemberIds } from './fleetMembers';

const DETECT = 'detect';
/** The tools a login node may run the probe with (built when asked: the words follow the display language). */
function relayTools(): { label: RelayTool | typeof DETECT; description: string }[] {
  const described: Record<RelayTool, string> = {
    slurm: vscode.l10n.t('srun runs the probe on each node (one task per node)'),
    pdsh: vscode.l10n.t('pdsh -R ssh runs it on each node'),
    clush: vscode.l10n.t('ClusterShell runs it on each node'),
  };
  return [
    { label: DETECT, description: vscode.l10n.t('whatever the login node offers: {0} (looked up when diagnosing)', RELAY_PREFERENCE) },
    ...RELAY_TOOLS.map((tool) => ({ label: tool, description: described[tool] })),
  ];
}
const PARTITION = /^[A-Za-z0-9._-]{1,128}$/;

export async function addFleetCommand(ctx: Ctx): Promise<void> {
  const existing = readSettings().fleets;
  const ask = (title: string, o: vscode.InputBoxOptions) =>
    vscode.window.showInputBox({ title: vscode.l10n.t('Add Fleet: {0}', title), ignoreFocusOut: true, ...o });
  const name = await ask(vscode.l10n.t('name'), {
    prompt: vscode.l10n.t('A name for this group of hosts, shown in the Hosts view.'),
    placeHolder: 'gpu-cluster',
    validateInput: (v) => validateName(v, existing),
  });
  if (name === undefined) return;
  const hosts = await ask(vscode.l10n.t('hosts'), {
    prompt: vscode.l10n.t(
      'Hosts as pdsh and ClusterShell write them: gpu[01-64], node-[1-4,7],login1. Each is an SSH destination resolved through your SSH config.',
    ),
    placeHolder: 'gpu[01-64]',
    validateInput: validateHostList,
  });
  if (hosts === undefined) return;
  const via = await ask(vscode.l10n.t('login node (optional)'), {
    prompt: vscode.l10n.t(
      'Leave empty to reach each host over SSH directly. Or an SSH destination of a login node that reaches them with Slurm, pdsh or clush.',
    ),
    placeHolder: vscode.l10n.t('login-node (empty: direct SSH)'),
    validateInput: (v) => destinationProblem(v, true),
  });
  if (via === undefined) return;
  const fleet = await relayPart({ name: name.trim(), hosts: hosts.trim() }, via.trim());
  if (!fleet) return;
  await updateFleets((raw) => withFleetAdded(raw, fleet));
  ctx.fleets.invalidate();
  ctx.log.info(
    `added fleet ${fleet.name}: ${fleet.hosts}${fleet.via ? ` via ${fleet.via} with ${fleet.with ?? 'the tool it offers'}` : ''}`,
  );
}

/** With a login node: the tool it runs (and, for Slurm, an optional partition). */
async function relayPart(fleet: FleetConfig, via: string): Promise<FleetConfig | undefined> {
  if (via === '') return fleet;
  const tool = await vscode.window.showQuickPick(relayTools(), {
    title: vscode.l10n.t('Add Fleet: how does {0} reach the hosts?', via),
    ignoreFocusOut: true,
  });
  if (!tool) return undefined;
  if (tool.label === DETECT) return { ...fleet, via };
  if (tool.label !== 'slurm') return { ...fleet, via, with: tool.label };
  const partition = await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Fleet: Slurm partition (optional)'),
    prompt: vscode.l10n.t('Leave empty for the default partition.'),
    ignoreFocusOut: true,
    validateInput: (v) =>
      v.trim() === '' || PARTITION.test(v.trim()) ? undefined : vscode.l10n.t('A partition name: letters, digits, . _ -'),
  });
  if (partition === undefined) return undefined;
  return { ...fleet, via, with: 'slurm', ...(partition.trim() !== '' ? { partition: partition.trim() } : {}) };
}

function validateName(v: string, existing: readonly FleetConfig[]): string | undefined {
  if (v.trim() === '') return vscode.l10n.t('Type a name.');
  if (/[/\\]/.test(v)) return vscode.l10n.t('A name without / or \\.');
  return existing.some((f) => f.name === v.trim()) ? vscode.l10n.t('A fleet named {0} exists already.', v.trim()) : undefined;
}

/** Live as the list is typed: where it is wrong (column), or how many hosts it names. */
export function validateHostList(v: string): vscode.InputBoxValidationMessage | string | undefined {
  if (v.trim() === '') return vscode.l10n.t('Type a host list, e.g. gpu[01-64].');
  try {
    const hosts = expandHostList(v);
    return {
      message:
        hosts.length === 1
          ? vscode.l10n.t('1 host: {0}', foldHostList(hosts))
          : vscode.l10n.t('{0} hosts: {1}', hosts.length, foldHostList(hosts)),
      severity: vscode.InputBoxValidationSeverity.Info,
    };
  } catch (e) {
    if (e instanceof HostListError) return vscode.l10n.t('Column {0}: {1}', e.column, e.reason);
    return errorText(e);
  }
}

export async function removeFleetCommand(ctx: Ctx, node?: HostsNode): Promise<void> {
  const fleet = await targetFleet(ctx, node, vscode.l10n.t('Remove which fleet?'));
  if (!fleet) return;
  await updateFleets((raw) => withFleetRemoved(raw, fleet.name));
  ctx.fleets.forget(fleet.name);
  ctx.fleets.invalidate();
  ctx.log.info(`removed fleet ${fleet.name}`);
  // The passwords of its hosts behind a login node go with it (direct hosts are the Hosts view's own).
  const forgotten = await forgetHostPasswords(ctx.extension.secrets, relayedMemberIds(fleet));
  if (forgotten > 0) ctx.log.info(`forgot ${forgotten} remembered sudo password(s) of fleet ${fleet.name}`);
}

export async function diagnoseFleetCommand(ctx: Ctx, node?: HostsNode): Promise<void> {
  const fleet = await targetFleet(ctx, node, vscode.l10n.t('Diagnose which fleet?'));
  if (fleet) await diagnoseFleet(ctx, fleet);
}

/** The clicked fleet (or the fleet of a clicked group), or one picked from the configured ones. */
export async function targetFleet(ctx: Ctx, node: HostsNode | undefined, title: string): Promise<FleetConfig | undefined> {
  const clicked = node?.kind === 'fleet' || node?.kind === 'fleetGroup' ? ctx.fleets.get(node.fleet) : undefined;
  if (clicked) return clicked;
  const fleets = ctx.fleets.fleets();
  if (fleets.length === 0) {
    void notifyInfo(vscode.l10n.t('No fleet yet: add one with "GPUDirect RDMA: Add Fleet…".'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    fleets.map((f) => ({ label: f.name, description: f.hosts, fleet: f })),
    { title },
  );
  return picked?.fleet;
}
