// A host row's context value says which host actions work on it, so package.json's menus show only
// those (no Disconnect without a connection, no Show Topology without a topology to draw):
// `gdrDoctor.host;kind=ssh;diagnosed;topology;connected;fixable;removable`. No VS Code import:
// unit-tested against package.json's when-clauses.
import { ContextValues } from '../../constants';
import { hostTopology } from '../../core/diagnosis/hostTopology';
import type { HostEntry, HostStatus } from '../hosts/hostModel';

/** What a host row can do, each a `;flag` of its context value. */
export type HostFlag = 'diagnosed' | 'topology' | 'connected' | 'fixable' | 'removable' | 'demo' | 'watched';

export interface HostFacts {
  readonly host: HostEntry;
  readonly status: HostStatus;
  /** An SSH connection to the host is open (Disconnect has something to close). */
  readonly connected: boolean;
}

/** Quick fixes run over SSH on the host itself, or on the demo's simulated state. */
export function takesQuickFixes(host: HostEntry): boolean {
  return host.kind === 'ssh' || host.kind === 'demo';
}

export function hostFlags({ host, status, connected }: HostFacts): HostFlag[] {
  const last = status.lastDiagnosed;
  const flags: [HostFlag, boolean][] = [
    ['diagnosed', last !== undefined],
    // `nvidia-smi topo -m`, or where it failed the matrix derived from the sysfs PCI tree (what Show Topology draws).
    ['topology', last !== undefined && hostTopology(last.report) !== null],
    ['connected', connected],
    ['fixable', takesQuickFixes(host)],
    // Hosts from the SSH config are removed there; this machine is always listed once a host is.
    ['removable', host.origin === 'added' || host.origin === 'demo'],
    // Reset Demo Host applies.
    ['demo', host.kind === 'demo'],
    // Stop Watching applies (Watch is offered on every host).
    ['watched', status.watch !== undefined],
  ];
  return flags.filter(([, on]) => on).map(([flag]) => flag);
}

export function hostContextValue(facts: HostFacts): string {
  return [`${ContextValues.host}`, `kind=${facts.host.kind}`, ...hostFlags(facts)].join(';');
}

/** The `when` clause of a host menu item: any host row, only those with `flag`, or (`without`) only those without it. */
export function hostMenuWhen(view: string, flag?: HostFlag, without = false): string {
  const pattern =
    flag === undefined
      ? `/^gdrDoctor\\.host;/`
      : without
        ? `/^gdrDoctor\\.host;(?!.*;${flag}(;|$))/`
        : `/^gdrDoctor\\.host;.*;${flag}(;|$)/`;
  return `view == ${view} && viewItem =~ ${pattern}`;
}
