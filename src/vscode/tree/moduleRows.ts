// The "Modules" group: the peer-memory state the rules read (core hostState), one row per fact,
// each three-valued (yes / no / not read) so "unknown" is never shown as "no".
import { HostState } from '../../core/diagnosis/hostState';
import type { Tone } from './nodes';
import { t } from '../../core/l10n';

export interface ModuleRow {
  readonly label: string;
  readonly value: string;
  readonly tone: Tone;
}

export function moduleRows(h: HostState): ModuleRow[] {
  const p = h.peermem;
  const rows: ModuleRow[] = [
    tri(t('nvidia_peermem loaded'), p.newLoaded, 'ok', 'warning'),
    tri(t('nv_peer_mem loaded (legacy)'), p.legacyLoaded, 'ok', 'idle'),
    {
      label: t('peer-memory clients registered'),
      value: p.registered === null ? t('not read') : p.registered.length > 0 ? p.registered.join(', ') : t('none'),
      tone: p.registered === null ? 'unknown' : p.registered.length > 0 ? 'ok' : 'warning',
    },
    {
      label: t('persisted at boot'),
      value: p.persistedBy === null ? t('not read') : [...p.persistedBy.new, ...p.persistedBy.legacy].join(', ') || t('no'),
      tone: p.persistedBy === null ? 'unknown' : p.persistedBy.new.length + p.persistedBy.legacy.length > 0 ? 'ok' : 'warning',
    },
    tri(t('nv_peer_mem service enabled'), p.legacyServiceEnabled, 'ok', 'idle'),
    tri(t('ib_register_peer_memory_client exported'), p.symbolExported, 'ok', 'warning'),
    tri(t('MLNX_OFED / DOCA-OFED installed'), h.ofedPresent, 'ok', 'idle'),
    { label: t('driver owned by GPU Operator'), value: h.operatorManaged ? t('yes') : t('no'), tone: 'idle' },
    { label: t('NVIDIA driver branch'), value: h.driverBranch === null ? t('not read') : String(h.driverBranch), tone: h.driverBranch === null ? 'unknown' : 'idle' },
  ];
  return rows;
}

function tri(label: string, value: boolean | null, yes: Tone, no: Tone): ModuleRow {
  return { label, value: value === null ? t('not read') : value ? t('yes') : t('no'), tone: value === null ? 'unknown' : value ? yes : no };
}
