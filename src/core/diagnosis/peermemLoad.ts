// Peer-memory rules about getting the module in at all (docs/peer-memory.md §2, §5): it is missing
// for this kernel, present but not loaded, loaded but not persisted, or it cannot load because the
// running ib_core lacks the peer-memory API (inbox kernel stack instead of MLNX_OFED/DOCA-OFED).
import { commandOf, factOf, note, quote, startsWithWord } from './evidence';
import { RuleContext } from './context';
import { Finding, FixId, SOURCES } from './finding';
import { LEGACY_MODULE, NEW_MODULE, PeermemLoadBlock, anyPeermemLoaded, peermemLoadBlock } from './hostState';
import { modinfoEvidence, notLoadedEvidence } from './peermemEvidence';
import { t } from '../l10n';

/** nvidia-peermem ships with the driver from this branch on. */
const PEERMEM_MIN_BRANCH = 470;

export function peermemLoadFindings(ctx: RuleContext): Finding[] {
  const mismatch = ofedMismatch(ctx);
  const missing = peermemMissing(ctx);
  const notLoaded = missing.length > 0 ? [] : peermemNotLoaded(ctx, mismatch.length > 0);
  return [...mismatch, ...missing, ...notLoaded, ...notPersistent(ctx, notLoaded)];
}

/** The module modprobe should load: the driver's own unless only the legacy one exists. */
function moduleToLoad({ host }: RuleContext): string {
  return host.peermem.newExists === false && host.peermem.legacyExists === true ? LEGACY_MODULE : NEW_MODULE;
}

function peermemMissing({ report, host, dmabuf }: RuleContext): Finding[] {
  const p = host.peermem;
  // Under the GPU Operator the module files live in the driver container, not on the host.
  if (host.operatorManaged || anyPeermemLoaded(p) !== false || p.newExists !== false || p.legacyExists === true) return [];
  const optional = dmabuf.available === true;
  return [
    {
      id: 'peermem.missing',
      severity: optional ? 'info' : 'error',
      title: optional
        ? t('No peer-memory module for this kernel (not needed: dma-buf is available)')
        : t('No peer-memory module exists for the running kernel'),
      detail:
        t(
          "Neither {0} nor {1} is installed for this kernel (modinfo finds neither). {0} ships with the NVIDIA driver since R470 and every driver build makes it; it is missing when the driver predates it, when a kernel upgrade left no driver modules built for the running kernel (DKMS), or when the distribution's driver package leaves it out: install MLNX_OFED/DOCA-OFED first, then (re)install the NVIDIA driver for this kernel",
          NEW_MODULE,
          LEGACY_MODULE,
        ) +
        (host.driverBranch !== null && host.driverBranch < PEERMEM_MIN_BRANCH
          ? t('; driver {0} predates it: upgrade the driver', host.driverBranch)
          : '') +
        (optional
          ? t('. dma-buf meets its prerequisites here, so NCCL can use GPUDirect RDMA without it.')
          : t(', or move to dma-buf (open kernel modules ≥ 535, kernel ≥ 5.12).')),
      evidence: [...modinfoEvidence(report, 'modinfo-nvidia-peermem'), ...modinfoEvidence(report, 'modinfo-nv-peer-mem')],
      fixes: [],
      source: SOURCES.driverReadme,
    },
  ];
}

function peermemNotLoaded(ctx: RuleContext, cannotLoad: boolean): Finding[] {
  const { report, host, dmabuf } = ctx;
  const p = host.peermem;
  if (anyPeermemLoaded(p) !== false || dmabuf.available === true || !mayExist(ctx)) return [];
  const module = moduleToLoad(ctx);
  const fixes: FixId[] = host.operatorManaged || cannotLoad ? [] : ['load-peermem'];
  return [
    {
      id: 'peermem.not-loaded',
      severity: 'error',
      title: t('{0} is not loaded', module),
      detail: [
        t(
          "A peer-memory module exists for this kernel but none is loaded, and dma-buf is not shown to be available: NCCL finds none of /sys/kernel/mm/memory_peers/nv_mem*/version and falls back to staging through host memory. Load it after OFED's ib_core/mlx5_ib: modprobe {0}, then persist it.",
          module,
        ),
        p.newExists === null && p.legacyExists === null
          ? t('(modinfo could not confirm the module file: it is assumed from the driver branch.)')
          : '',
        cannotLoad ? t('Loading will fail until the OFED problem below is solved (peermem.ofed-mismatch).') : '',
        p.symbolExported === false && !cannotLoad
          ? t(
              'Note: /proc/kallsyms does not list ib_register_peer_memory_client; if modprobe fails with "Invalid argument", the loaded ib_core is not OFED\'s.',
            )
          : '',
        host.operatorManaged
          ? t(
              'The GPU Operator owns the driver here: enable RDMA in its ClusterPolicy (driver.rdma.enabled=true) instead of loading it by hand.',
            )
          : '',
      ]
        .filter((s) => s !== '')
        .join(' '),
      evidence: [
        ...notLoadedEvidence(report),
        ...modinfoEvidence(report, module === NEW_MODULE ? 'modinfo-nvidia-peermem' : 'modinfo-nv-peer-mem'),
        ...quote(report, 'lsmod', startsWithWord('ib_core')),
      ],
      fixes,
      source: SOURCES.driverReadme,
    },
  ];
}

/** A module file was found, or modinfo could not tell and the driver is new enough to ship one. */
function mayExist({ host }: RuleContext): boolean {
  const p = host.peermem;
  // The operator's driver container holds the module files; the host's modinfo cannot see them.
  if (host.operatorManaged || p.newExists === true || p.legacyExists === true) return true;
  if (p.newExists === false && p.legacyExists !== null) return false;
  return host.driverBranch !== null && host.driverBranch >= PEERMEM_MIN_BRANCH;
}

function notPersistent({ report, host }: RuleContext, notLoaded: readonly Finding[]): Finding[] {
  const p = host.peermem;
  if (host.operatorManaged || p.persistedBy === null) return [];
  const willLoad = notLoaded.some((f) => f.fixes.includes('load-peermem'));
  const legacyInUse = p.legacyLoaded === true && p.newLoaded !== true;
  if (!(p.newLoaded === true || legacyInUse || willLoad)) return [];
  if (legacyInUse ? p.persistedBy.legacy.length > 0 || p.legacyServiceEnabled === true : p.persistedBy.new.length > 0) return [];
  const module = legacyInUse ? LEGACY_MODULE : NEW_MODULE;
  const read = [...(factOf(report, 'modules-load')?.files ?? []), ...(factOf(report, 'etc-modules')?.files ?? [])].map((f) => f.path);
  return [
    {
      id: 'peermem.not-persistent',
      severity: 'warning',
      title: t('{0} is not loaded at boot', module),
      detail: t(
        'No /etc/modules-load.d/*.conf file (nor /etc/modules) names {0}, so it "must be loaded on each node boot" by hand, and an OFED reinstall unloads it. Persist it with /etc/modules-load.d/nvidia-peermem.conf containing the line "{1}".',
        module,
        module.replace(/_/g, '-'),
      ),
      evidence: [
        note(
          report,
          'modules-load',
          read.length > 0 ? `no line names ${module} in ${read.join(', ')}` : 'no modules-load.d file and no /etc/modules',
        ),
      ],
      fixes: ['persist-peermem'],
      source: SOURCES.modulesLoad,
    },
  ];
}

/** Why a modprobe would fail, in the words of the refusal and the finding. */
export function loadBlockWords(block: PeermemLoadBlock): string {
  switch (block) {
    case 'inbox-ib-core':
      return t(
        'the running ib_core does not export ib_register_peer_memory_client and no MLNX_OFED/DOCA-OFED is installed (the inbox kernel stack). Install OFED, then reinstall the NVIDIA driver so nvidia-peermem is built against it.',
      );
    case 'ofed-not-running':
      return t(
        "MLNX_OFED/DOCA-OFED is installed, but the running kernel does not export ib_register_peer_memory_client: the ib_core loaded is not OFED's (OFED installed without a reboot, or its modules blacklisted). Reboot, or restart the stack (/etc/init.d/openibd restart), then load it.",
      );
    case 'built-without-ofed':
      return t(
        "the installed nvidia_peermem was built without OFED's peer-memory symbols (modinfo: it depends on neither ib_core nor ib_uverbs, the modules MLNX_OFED/DOCA-OFED export ib_register_peer_memory_client from), so its init always returns -EINVAL: OFED was installed after the NVIDIA driver. Reinstall the driver (or rebuild its DKMS modules) now that OFED is present.",
      );
  }
}

/** The module cannot load as things stand: the inbox ib_core, OFED not running, or a stub module file. */
function ofedMismatch({ report, host, dmabuf }: RuleContext): Finding[] {
  const block = peermemLoadBlock(host);
  if (block === null) return [];
  const ofed = commandOf(report, 'ofed');
  const evidence =
    block === 'built-without-ofed'
      ? quote(report, 'modinfo-nvidia-peermem', (l) => /^(filename|version|depends):/.test(l))
      : [
          note(report, 'kallsyms-peer', 'no line: ib_register_peer_memory_client is not exported by the running kernel'),
          ofed?.missing
            ? note(report, 'ofed', 'command not found (exit 127): no MLNX_OFED/DOCA-OFED')
            : (quote(report, 'ofed', () => true)[0] ?? note(report, 'ofed', `exit ${ofed?.exitCode ?? '?'}`)),
          ...quote(report, 'lsmod', startsWithWord('ib_core')),
        ];
  return [ofedMismatchFinding(dmabuf.available === true, evidence, loadBlockWords(block))];
}

function ofedMismatchFinding(dmabufAvailable: boolean, evidence: string[], cause?: string): Finding {
  return {
    id: 'peermem.ofed-mismatch',
    severity: dmabufAvailable ? 'info' : 'error',
    title: t('nvidia-peermem cannot load: the peer-memory API of MLNX_OFED/DOCA-OFED is missing'),
    detail: [
      t(
        'nvidia_peermem (and the legacy nv_peer_mem) register with ib_register_peer_memory_client, which only MLNX_OFED/DOCA-OFED export (from ib_core in older releases, from ib_uverbs in recent MLNX_OFED and DOCA-OFED). The NVIDIA driver always builds nvidia-peermem, but built without OFED\'s symbols its init returns -EINVAL, and against a kernel without them it finds no symbol: modprobe fails with "Invalid argument" (dmesg: "Unknown symbol" or "disagrees about version of symbol ib_register_peer_memory_client").',
      ),
      cause
        ? t('Here: {0}', cause)
        : t(
            'Install OFED first, then (re)install the NVIDIA driver so nvidia-peermem is built against it; after an OFED upgrade, rebuild/reinstall the driver.',
          ),
      dmabufAvailable
        ? t('dma-buf is available here and needs no OFED, so this only matters if you want peer memory.')
        : t('Alternatively use dma-buf (open kernel modules ≥ 535, kernel ≥ 5.12), which works with inbox rdma-core.'),
    ].join(' '),
    evidence,
    fixes: [],
    source: [
      SOURCES.peermemSymbol,
      'NVIDIA open-gpu-kernel-modules kernel-open/nvidia-peermem/nvidia-peermem.c nv_mem_client_init, kernel-open/conftest.sh ib_peer_memory_symbols',
    ].join('; '),
  };
}

const MODPROBE_MISMATCH = [
  /could not insert '(nvidia_peermem|nv_peer_mem)': Invalid argument/,
  /disagrees about version of symbol ib_register_peer_memory_client/,
  /Unknown symbol ib_register_peer_memory_client/,
];

/**
 * For the fix step: `peermem.ofed-mismatch` from what a failed `modprobe` (or dmesg) printed, or
 * null when the text shows another failure. The probe never runs modprobe, so only the fix sees it.
 * `command` names the output in the evidence (`modprobe nvidia_peermem`, `dmesg`).
 */
export function ofedMismatchFromModprobe(output: string, command: string, dmabufAvailable = false): Finding | null {
  const lines = output
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .filter((l) => MODPROBE_MISMATCH.some((re) => re.test(l)));
  if (lines.length === 0) return null;
  return ofedMismatchFinding(
    dmabufAvailable,
    lines.map((l) => `${command}: ${l}`),
  );
}
