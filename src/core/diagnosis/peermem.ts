// Peer-memory rules (docs/peer-memory.md §1, §3): which of nvidia_peermem / nv_peer_mem is in use,
// whether both are, and whether the loaded one registered with ib_core (NCCL's test: a memory_peers
// version file).
import { quote } from './evidence';
import { RuleContext } from './context';
import { Finding, SOURCES } from './finding';
import { SYS_MODULE_NVIDIA_PEERMEM } from '../topology/nccl/rules';
import { formatNcclVersion } from '../topology/nccl/version';
import { LEGACY_MODULE, NEW_MODULE, anyPeermemLoaded } from './hostState';
import { loadedEvidence, registrationEvidence } from './peermemEvidence';
import { t } from '../l10n';

export function peermemStateFindings(ctx: RuleContext): Finding[] {
  return [...conflict(ctx), ...legacy(ctx), ...notRegistered(ctx)];
}

function conflict({ report, host }: RuleContext): Finding[] {
  const p = host.peermem;
  if (p.newLoaded && p.legacyLoaded) {
    return [{
      id: 'peermem.conflict',
      severity: 'error',
      title: t('Both {0} and the legacy {1} are loaded', NEW_MODULE, LEGACY_MODULE),
      detail: t('Only one peer-memory client may be loaded. {0} ships with the NVIDIA driver (R470+) and replaces {1}: stop and disable the legacy service (systemctl disable --now nv_peer_mem), unload {1} (rmmod {1}) and keep {0}.', NEW_MODULE, LEGACY_MODULE),
      evidence: [...loadedEvidence(report, NEW_MODULE), ...loadedEvidence(report, LEGACY_MODULE)],
      fixes: [],
      source: SOURCES.driverReadme,
    }];
  }
  if (p.newLoaded && p.legacyServiceEnabled) {
    return [{
      id: 'peermem.conflict',
      severity: 'warning',
      title: t('The legacy nv_peer_mem service is enabled beside {0}', NEW_MODULE),
      detail: t('{0} is loaded, but the nv_peer_mem service will try to load {1} at boot as well; only one peer-memory client may be loaded. Disable the legacy service: systemctl disable --now nv_peer_mem.', NEW_MODULE, LEGACY_MODULE),
      evidence: [...loadedEvidence(report, NEW_MODULE), ...quote(report, 'nv-peer-mem-service', () => true)],
      fixes: [],
      source: SOURCES.driverReadme,
    }];
  }
  return [];
}

function legacy({ report, host }: RuleContext): Finding[] {
  if (host.peermem.legacyLoaded !== true || host.peermem.newLoaded === true) return [];
  return [{
    id: 'peermem.legacy',
    severity: 'warning',
    title: t('The legacy {0} module is in use', LEGACY_MODULE),
    detail: t('{0} (Mellanox, DKMS) is deprecated since CUDA 11.5; {1} ships with the NVIDIA driver since R470 and replaces it. It still works while it is registered, but it is rebuilt outside the driver and breaks on driver or OFED upgrades. Move to {1}: systemctl disable --now nv_peer_mem, then modprobe {1} and persist it.', LEGACY_MODULE, NEW_MODULE),
    evidence: [...loadedEvidence(report, LEGACY_MODULE), ...quote(report, 'modinfo-nv-peer-mem', (l) => /^version:/.test(l))],
    fixes: [],
    source: SOURCES.driverReadme,
  }];
}

/**
 * Loaded, no memory_peers entry. NCCL before 2.23 looks only there and turns GPUDirect RDMA off (NCCL 2.22
 * also at nv_mem_nc); from 2.23 it also accepts /sys/module/nvidia_peermem/version, which a loaded
 * nvidia_peermem always has (src/transport/net_ib gdr.cc/net_ib.cc ncclIbGdrSupport; NVIDIA/nccl#1676).
 */
function notRegistered({ report, host, dmabuf, rules }: RuleContext): Finding[] {
  const p = host.peermem;
  if (anyPeermemLoaded(p) !== true || p.registered === null || p.registered.length > 0) return [];
  const module = p.newLoaded ? NEW_MODULE : LEGACY_MODULE;
  const accepted = module === NEW_MODULE && rules.peermemFiles.includes(SYS_MODULE_NVIDIA_PEERMEM);
  const nccl = `NCCL ${formatNcclVersion(rules.version)}`;
  const outcome = accepted
    ? t('{0} (the release assumed) accepts /sys/module/nvidia_peermem/version, so it still uses GPUDirect RDMA; jobs on NCCL 2.22 or older (and tools that test only memory_peers, such as some NVSHMEM builds) turn it off.', nccl)
    : dmabuf.available === true
      ? t('{0} does not count the module without that entry, but dma-buf is available, so it can still use GPUDirect RDMA through it.', nccl)
      : module === NEW_MODULE
        ? t('{0} checks only memory_peers (/sys/module/nvidia_peermem/version counts from NCCL 2.23 on), so it turns GPUDirect RDMA off ("GPU Direct RDMA Disabled for HCA").', nccl)
        : t('{0} checks only memory_peers, so it turns GPUDirect RDMA off ("GPU Direct RDMA Disabled for HCA").', nccl);
  return [{
    id: 'peermem.not-registered',
    severity: accepted || dmabuf.available === true ? 'warning' : 'error',
    title: accepted ? t('{0} is loaded but has no memory_peers entry: NCCL 2.22 and older turn GPUDirect RDMA off', module) : t('{0} is loaded but has no memory_peers entry', module),
    detail: t('A peer-memory client registered with the MLNX_OFED/DOCA-OFED ib_core shows up as /sys/kernel/mm/memory_peers/nv_mem/version (or nv_mem_nc). The module is loaded, yet no such entry exists: recent driver/OFED combinations (DGX OS 25.01, NVIDIA/nccl#1676) no longer create it, or the module was loaded before OFED\'s ib_core. {0} To restore the entry: rmmod {1}; modprobe {1} after OFED\'s modules, then check the version file; or move the jobs to NCCL ≥ 2.23.', outcome, module),
    evidence: [...loadedEvidence(report, module), ...registrationEvidence(report)],
    fixes: [],
    source: `${SOURCES.peermemRegistration}; NVIDIA/nccl#1676`,
  }];
}
