// The values of the `has…` context keys, from the hosts the palette's pickers offer (the listed hosts)
// and the configured fleets: a command is in the palette only when it has something to act on.
// No VS Code import (contextKeys.ts sets them).
import { ContextKeys } from '../constants';
import { HostFacts, HostFlag, hostFlags } from './tree/hostContext';

export type ContextKeyValues = Readonly<Record<string, boolean>>;

export function hostListKeys(hosts: readonly HostFacts[]): ContextKeyValues {
  const flags = hosts.map(hostFlags);
  const any = (flag: HostFlag) => flags.some((f) => f.includes(flag));
  return {
    [ContextKeys.hostsListed]: true,
    [ContextKeys.hasHosts]: hosts.length > 0,
    [ContextKeys.hasDiagnosedHost]: any('diagnosed'),
    [ContextKeys.hasTopology]: any('topology'),
    [ContextKeys.hasConnection]: any('connected'),
    [ContextKeys.hasFixableHost]: any('fixable'),
    [ContextKeys.hasRemovableHost]: any('removable'),
    [ContextKeys.hasProvableHost]: any('provable'),
  };
}
