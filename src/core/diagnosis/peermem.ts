// Peer-memory rules (DOMAIN.md §3): which of nvidia_peermem / nv_peer_mem is in use, whether both
// are, and whether the loaded one registered with ib_core (NCCL's test: a memory_peers version file).
import { quote } from './evidence';
import { RuleContext } from './context';
import { Finding, SOURCES } from './finding';
import { LEGACY_MODULE, NEW_MODULE, anyPeermemLoaded } from './hostState';
import { loadedEvidence, registrationEvidence } from './peermemEvidence';

export function peermemStateFindings(ctx: RuleContext): Finding[] {
  return [...conflict(ctx), ...legacy(ctx), ...notRegistered(ctx)];
}

function conflict({ report, host }: RuleContext): Finding[] {
  const p = host.peermem;
  if (p.newLoaded && p.legacyLoaded) {
    return [{
      id: 'peermem.conflict',
      severity: 'error',
      title: `Both ${NEW_MODULE} and the legacy ${LEGACY_MODULE} are loaded`,
      detail:
        `Only one peer-memory client may be loaded. ${NEW_MODULE} ships with the NVIDIA driver (R470+) and replaces ${LEGACY_MODULE}: ` +
        `stop and disable the legacy service (systemctl disable --now nv_peer_mem), unload ${LEGACY_MODULE} (rmmod ${LEGACY_MODULE}) and keep ${NEW_MODULE}.`,
      evidence: [...loadedEvidence(report, NEW_MODULE), ...loadedEvidence(report, LEGACY_MODULE)],
      fixes: [],
      source: SOURCES.driverReadme,
    }];
  }
  if (p.newLoaded && p.legacyServiceEnabled) {
    return [{
      id: 'peermem.conflict',
      severity: 'warning',
      title: `The legacy nv_peer_mem service is enabled beside ${NEW_MODULE}`,
      detail:
        `${NEW_MODULE} is loaded, but the nv_peer_mem service will try to load ${LEGACY_MODULE} at boot as well; only one ` +
        'peer-memory client may be loaded. Disable the legacy service: systemctl disable --now nv_peer_mem.',
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
    title: `The legacy ${LEGACY_MODULE} module is in use`,
    detail:
      `${LEGACY_MODULE} (Mellanox, DKMS) is deprecated since CUDA 11.5; ${NEW_MODULE} ships with the NVIDIA driver since R470 and replaces it. ` +
      `It still works while it is registered, but it is rebuilt outside the driver and breaks on driver or OFED upgrades. ` +
      `Move to ${NEW_MODULE}: systemctl disable --now nv_peer_mem, then modprobe ${NEW_MODULE} and persist it.`,
    evidence: [...loadedEvidence(report, LEGACY_MODULE), ...quote(report, 'modinfo-nv-peer-mem', (l) => /^version:/.test(l))],
    fixes: [],
    source: SOURCES.driverReadme,
  }];
}

function notRegistered({ report, host, dmabuf }: RuleContext): Finding[] {
  const p = host.peermem;
  if (anyPeermemLoaded(p) !== true || p.registered === null || p.registered.length > 0) return [];
  const module = p.newLoaded ? NEW_MODULE : LEGACY_MODULE;
  return [{
    id: 'peermem.not-registered',
    severity: dmabuf.available === true ? 'warning' : 'error',
    title: `${module} is loaded but registered no peer-memory client`,
    detail:
      'A peer-memory client that works shows up as /sys/kernel/mm/memory_peers/nv_mem/version (or nv_mem_nc). The module is loaded, ' +
      'yet no such entry exists: it did not register with ib_core (loaded before the OFED ib_core, or an inbox ib_core without the ' +
      'peer-memory API). NCCL may still believe GPUDirect RDMA is supported (it also accepts /sys/module/nvidia_peermem/version), and ' +
      'registering GPU memory with the NIC then fails. Reload it after OFED\'s modules: ' +
      `rmmod ${module}; modprobe ${module}; then check the version file.` +
      (dmabuf.available === true ? ' dma-buf is available, so NCCL can still use GPUDirect RDMA through it.' : ''),
    evidence: [...loadedEvidence(report, module), ...registrationEvidence(report)],
    fixes: [],
    source: SOURCES.peermemRegistration,
  }];
}
