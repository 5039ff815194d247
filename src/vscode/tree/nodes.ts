// The Hosts tree's elements as data: every element has an explicit `kind`, a stable id and the text it shows.
// hostNodes.ts and fleet/fleetNodes.ts build them, treeItems.ts and fleet/fleetItems.ts render them.
import type { Finding, GpuNicPair } from '../../core/diagnosis';
import type { FixId } from '../../core/fixes';
import type { FleetGroup } from '../../core/fleet/grouping';
import type { FindingRef } from '../findings/findingRefs';

export type GroupId = 'findings' | 'gpus' | 'proof' | 'nics' | 'numa' | 'modules' | 'raw' | 'ncclLog';
/** `done`: finished, saying nothing about the result (a host's "Diagnosed at …" row: the host's icon carries the verdict). */
export type Tone = 'ok' | 'warning' | 'error' | 'idle' | 'working' | 'unknown' | 'done';

interface Base {
  /** Tree id: a host's own id at the root; under a fleet, scoped by the fleet and group (one host may show twice). */
  readonly id: string;
  readonly hostId: string;
}

export type HostsNode =
  /** `label`: a fleet's host that the host model does not list (reached through a login node). */
  | (Base & { kind: 'host'; label?: string })
  | (Base & { kind: 'status'; label: string; tone: Tone; tooltip: string })
  | (Base & { kind: 'group'; group: GroupId; label: string; description: string })
  /** `label`: the state in a few words (findingLabel.ts); `description`: the title where two labels read the same. */
  | (Base & { kind: 'finding'; finding: Finding; ref: FindingRef; label: string; description: string })
  | (Base & { kind: 'gpu'; pair: GpuNicPair; label: string; description: string; tooltip: GpuTooltip })
  | (Base & { kind: 'nic'; label: string; description: string; ports: HostsNode[] })
  | (Base & { kind: 'row'; label: string; description: string; tone: Tone; tooltip?: string })
  | (Base & { kind: 'raw'; commandId: string; label: string; description: string })
  | FleetNode;

/** A GPU row's tooltip, in the order it is read: the verdict, what to do, the facts, then why (NCCL's reasoning). */
export interface GpuTooltip {
  readonly verdict: string;
  readonly todo: string | undefined;
  readonly facts: readonly string[];
  readonly why: readonly string[];
}

export type FleetNode =
  | { readonly kind: 'fleet'; readonly id: string; readonly hostId: ''; readonly fleet: string }
  /** `fixes`: quick fixes every host of the group is offered. */
  | {
      readonly kind: 'fleetGroup';
      readonly id: string;
      readonly hostId: '';
      readonly fleet: string;
      readonly group: FleetGroup;
      readonly fixes: readonly FixId[];
    };
