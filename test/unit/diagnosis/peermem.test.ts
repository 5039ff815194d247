// Peer-memory rules on real lsmod/modinfo/ofed_info outputs (hosts.ts says which) and constructed
// sysfs files (constructedInputs.ts).
import * as assert from 'node:assert/strict';
import { NcclAssumptions, diagnose, ofedMismatchFromModprobe, readNcclAssumptions } from '../../../src/core/diagnosis';
import {
  KALLSYMS_ABSENT,
  KALLSYMS_EXPORTED,
  NO_FILES,
  RUN_NVIDIA_DRIVER_PRESENT,
  commandNotFound,
  memoryPeers,
  modinfoNotFound,
  nvPeerMemService,
  sysModule,
  unameFromModinfo,
} from './constructedInputs';
import { fixture, hostReport, labFile } from './hostReport';
import { HEALTHY, NO_PEERMEM, ids, only, problems, without } from './hosts';

const LEGACY_LSMOD = fixture('lsmod/egx-grep-nv-peer-mem-legacy.txt');

function readAssumptions(version: string, env: string[] = []): NcclAssumptions {
  const a = readNcclAssumptions(version, env);
  if (typeof a === 'string') throw new Error(a);
  return a;
}

describe('diagnosis: peer-memory module', () => {
  it('a loaded, registered, persisted nvidia_peermem raises nothing', async () => {
    const d = diagnose(await hostReport(HEALTHY));
    assert.deepEqual(
      ids(d.findings).filter((id) => id.startsWith('peermem.')),
      [],
    );
  });

  it('legacy nv_peer_mem in use: peermem.legacy (warning), not a conflict', async () => {
    const d = diagnose(
      await hostReport({
        ...NO_PEERMEM,
        lsmod: LEGACY_LSMOD,
        'modinfo-nv-peer-mem': fixture('modinfo/nv-peer-mem-1.0-8-ubuntu1804-dkms.txt'),
        'modinfo-nvidia-peermem': modinfoNotFound('nvidia_peermem'),
        'memory-peers': memoryPeers('1.0-8'),
        'nv-peer-mem-service': nvPeerMemService('enabled', 'active'),
      }),
    );
    const legacy = only(d.findings, 'peermem.legacy');
    assert.equal(legacy.severity, 'warning');
    // egx-grep-nv-peer-mem-legacy.txt line 1; nv-peer-mem-1.0-8 "version:" line.
    assert.ok(legacy.evidence.includes('lsmod: nv_peer_mem            16384  0'), legacy.evidence.join('\n'));
    assert.ok(legacy.evidence.includes('modinfo nv_peer_mem: version:        1.0-8'));
    assert.ok(!ids(d.findings).includes('peermem.conflict'));
    // The enabled service loads it at boot: no persistence finding.
    assert.ok(!ids(d.findings).includes('peermem.not-persistent'));
  });

  it('both modules loaded: peermem.conflict (error) quoting both', async () => {
    const d = diagnose(
      await hostReport({
        ...NO_PEERMEM,
        lsmod: LEGACY_LSMOD,
        'sys-module-peermem': sysModule('nvidia_peermem', '510.73.05') + sysModule('nv_peer_mem', '1.0-8'),
        'memory-peers': memoryPeers('510.73.05'),
      }),
    );
    const conflict = only(d.findings, 'peermem.conflict');
    assert.equal(conflict.severity, 'error');
    assert.equal(d.findings[0].id, 'peermem.conflict');
    assert.ok(conflict.evidence.some((e) => e.includes('/sys/module/nvidia_peermem/initstate')));
    assert.ok(conflict.evidence.includes('lsmod: nv_peer_mem            16384  0'));
    assert.ok(!ids(d.findings).includes('peermem.legacy'));
  });

  it('legacy service enabled beside nvidia_peermem: peermem.conflict (warning)', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, 'nv-peer-mem-service': nvPeerMemService('enabled', 'failed') }));
    const conflict = only(d.findings, 'peermem.conflict');
    assert.equal(conflict.severity, 'warning');
    assert.ok(conflict.evidence.includes('systemctl is-enabled/is-active nv_peer_mem: is-enabled: enabled'));
  });

  it('loaded but not registered: a warning under NCCL ≥ 2.23 (it reads /sys/module/nvidia_peermem/version), an error under 2.22', async () => {
    const host = {
      ...NO_PEERMEM,
      lsmod: fixture('lsmod/roce-ubuntu-grep-nvid-peermem-loaded.txt'),
      'modules-load': HEALTHY['modules-load'],
    };
    const report = await hostReport(host);
    const d = diagnose(report);
    const f = only(d.findings, 'peermem.not-registered');
    assert.equal(f.severity, 'warning');
    assert.match(f.title, /NCCL 2\.22 and older turn GPUDirect RDMA off/);
    assert.ok(f.evidence.includes('lsmod: nvidia_peermem         16384  0'));
    assert.ok(f.evidence.some((e) => e.includes('no /sys/kernel/mm/memory_peers/*/version file')));
    assert.deepEqual(problems(d.findings), ['warning peermem.not-registered']);
    assert.equal(d.pairs[0].gdr, true);
    // NCCL 2.22.3's ncclIbGdrSupport checks only memory_peers (nv_mem, nv_mem_nc): GPUDirect RDMA is off.
    const old = diagnose(report, readAssumptions('2.22.3'));
    assert.equal(only(old.findings, 'peermem.not-registered').severity, 'error');
    assert.equal(old.pairs[0].gdr, false);
    assert.match(old.pairs[0].reason, /NCCL 2\.22\.3: GPUDirect RDMA off: the NIC side reports no GPUDirect RDMA/);
    // Without modinfo nvidia and uname the open/proprietary flavour and the kernel are unknown, so dma-buf might
    // carry it: beside the error the pairs are unknown (null), never yes, naming what to read.
    const unread = diagnose(await hostReport(without(host, 'modinfo-nvidia', 'uname')), readAssumptions('2.22.3'));
    assert.equal(only(unread.findings, 'peermem.not-registered').severity, 'error');
    assert.ok(unread.pairs.every((p) => p.gdr === null));
    assert.deepEqual(
      unread.pairs[0].missing.map((m) => m.fact),
      ['nic-support'],
    );
  });

  it('present but not loaded: peermem.not-loaded (load-peermem) and not-persistent (persist-peermem)', async () => {
    const d = diagnose(await hostReport(NO_PEERMEM));
    assert.deepEqual(problems(d.findings), ['error peermem.not-loaded', 'warning peermem.not-persistent']);
    assert.deepEqual(only(d.findings, 'peermem.not-loaded').fixes, ['load-peermem']);
    assert.deepEqual(only(d.findings, 'peermem.not-persistent').fixes, ['persist-peermem']);
    // talos-connectx4-inbox-rdma-full-with-header.txt: the ib_core line is the last one.
    assert.ok(only(d.findings, 'peermem.not-loaded').evidence.some((e) => e.startsWith('lsmod: ib_core               356352  8 ')));
  });

  it('loaded but named by no modules-load.d file nor /etc/modules: peermem.not-persistent only', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, 'modules-load': NO_FILES, 'etc-modules': NO_FILES }));
    assert.deepEqual(problems(d.findings), ['warning peermem.not-persistent']);
  });

  describe('a real build depends on the module exporting ib_register_peer_memory_client; the stub on none', () => {
    // kernel-open/nvidia-peermem/nvidia-peermem.c (NVIDIA open-gpu-kernel-modules): the body calling
    // ib_register_peer_memory_client is compiled only with NV_MLNX_IB_PEER_MEM_SYMBOLS_PRESENT, so modpost
    // records its exporter under depends:. The modinfo is the lab's ASSEMBLED one (test/lab/profiles/README.md,
    // doca-peermem) with the depends: line set per row; the kallsyms lines are real (ROCm/rccl#1377: [ib_uverbs];
    // the constructed KALLSYMS_EXPORTED: [ib_core]).
    const DOCA_MODINFO = labFile('doca-peermem', 'modinfo/nvidia_peermem.txt');
    const UVERBS_KALLSYMS = labFile('healthy', 'kallsyms/ib_uverbs.txt');
    const withDepends = (depends: string) => DOCA_MODINFO.replace(/^depends:.*$/m, `depends:        ${depends}`);
    const rows: { stack: string; depends: string; kallsyms: string; stub: boolean }[] = [
      { stack: 'DOCA-OFED / recent MLNX_OFED (ib_uverbs exports it)', depends: 'ib_uverbs,nvidia', kallsyms: UVERBS_KALLSYMS, stub: false },
      { stack: 'older MLNX_OFED (ib_core exports it)', depends: 'ib_core,nvidia', kallsyms: KALLSYMS_EXPORTED, stub: false },
      { stack: 'both named', depends: 'ib_core,ib_uverbs,nvidia', kallsyms: UVERBS_KALLSYMS, stub: false },
      { stack: 'built without OFED (the stub)', depends: '', kallsyms: UVERBS_KALLSYMS, stub: true },
      { stack: 'only the GPU driver named', depends: 'nvidia', kallsyms: KALLSYMS_EXPORTED, stub: true },
    ];
    for (const row of rows) {
      it(`depends: ${row.depends || '(empty)'} — ${row.stack}: ${row.stub ? 'the stub, nothing to load' : 'a real build, load-peermem offered'}`, async () => {
        const d = diagnose(
          await hostReport({ ...NO_PEERMEM, 'modinfo-nvidia-peermem': withDepends(row.depends), 'kallsyms-peer': row.kallsyms }),
        );
        const notLoaded = only(d.findings, 'peermem.not-loaded');
        if (row.stub) {
          const mismatch = only(d.findings, 'peermem.ofed-mismatch');
          assert.equal(mismatch.severity, 'error');
          assert.match(mismatch.detail, /depends on neither ib_core nor ib_uverbs/);
          assert.ok(
            mismatch.evidence.some((e) => e.replace(/\s+$/, '') === `modinfo nvidia_peermem: depends:        ${row.depends}`.trimEnd()),
            mismatch.evidence.join('\n'),
          );
          assert.deepEqual(notLoaded.fixes, []);
        } else {
          assert.ok(!ids(d.findings).includes('peermem.ofed-mismatch'), ids(d.findings).join(', '));
          assert.deepEqual(notLoaded.fixes, ['load-peermem']);
          assert.deepEqual(problems(d.findings), ['error peermem.not-loaded', 'warning peermem.not-persistent']);
        }
      });
    }
  });

  it('modinfo finds neither module: peermem.missing (error), nothing to load', async () => {
    const d = diagnose(await hostReport({ ...NO_PEERMEM, 'modinfo-nvidia-peermem': modinfoNotFound('nvidia_peermem') }));
    const f = only(d.findings, 'peermem.missing');
    assert.equal(f.severity, 'error');
    assert.deepEqual(f.evidence, [
      'modinfo nvidia_peermem: modinfo: ERROR: Module nvidia_peermem not found.',
      'modinfo nv_peer_mem: modinfo: ERROR: Module nv_peer_mem not found.',
    ]);
    assert.ok(!ids(d.findings).includes('peermem.not-loaded'));
    assert.ok(!ids(d.findings).includes('peermem.not-persistent'));
  });

  it('inbox stack (no OFED, symbol not exported): peermem.ofed-mismatch (error); loading is not offered', async () => {
    const d = diagnose(await hostReport({ ...NO_PEERMEM, ofed: commandNotFound('ofed_info'), 'kallsyms-peer': KALLSYMS_ABSENT }));
    const f = only(d.findings, 'peermem.ofed-mismatch');
    assert.equal(f.severity, 'error');
    assert.ok(f.evidence.some((e) => e.startsWith('grep ib_register_peer_memory_client /proc/kallsyms: (no line')));
    assert.ok(f.evidence.includes('ofed_info -s: (command not found (exit 127): no MLNX_OFED/DOCA-OFED)'));
    assert.deepEqual(only(d.findings, 'peermem.not-loaded').fixes, []);
    // Cause and consequence are one finding: no separate ofed.missing, and nothing to persist.
    assert.ok(!ids(d.findings).includes('ofed.missing'));
    assert.ok(!ids(d.findings).includes('peermem.not-persistent'));
  });

  it('inbox stack with dma-buf prerequisites met (open 595, kernel 7.0): dmabuf.available, mismatch only info', async () => {
    const open = 'modinfo/nvidia-595-open-endeavouros.txt';
    const d = diagnose(
      await hostReport({
        ...NO_PEERMEM,
        ofed: commandNotFound('ofed_info'),
        'kallsyms-peer': KALLSYMS_ABSENT,
        'modinfo-nvidia': fixture(open),
        uname: unameFromModinfo(open),
      }),
    );
    assert.deepEqual(problems(d.findings), []);
    assert.equal(only(d.findings, 'peermem.ofed-mismatch').severity, 'info');
    assert.ok(only(d.findings, 'dmabuf.available').evidence.includes('modinfo nvidia: license:        Dual MIT/GPL'));
    assert.equal(d.pairs[0].gdr, true);
  });

  it("the fix step can raise ofed-mismatch from modprobe's own message, and only from it", () => {
    const message = JSON.parse(labFile('no-nic', 'profile.json')).modprobeErrors.nvidia_peermem as string;
    const f = ofedMismatchFromModprobe(message, 'modprobe nvidia_peermem');
    assert.equal(f?.id, 'peermem.ofed-mismatch');
    assert.deepEqual(f?.evidence, [`modprobe nvidia_peermem: ${message}`]);
    assert.equal(
      ofedMismatchFromModprobe('modprobe: FATAL: Module nvidia_peermem not found in directory /lib/modules/x', 'modprobe nvidia_peermem'),
      null,
    );
  });

  it('operator-managed driver: module state is reported, fixes are withheld and missing module files are not "missing"', async () => {
    const d = diagnose(
      await hostReport({
        ...NO_PEERMEM,
        'run-nvidia-driver': RUN_NVIDIA_DRIVER_PRESENT,
        'modinfo-nvidia': modinfoNotFound('nvidia'),
        'modinfo-nvidia-peermem': modinfoNotFound('nvidia_peermem'),
      }),
    );
    assert.equal(only(d.findings, 'driver.operator-managed').severity, 'info');
    assert.deepEqual(only(d.findings, 'driver.operator-managed').evidence.slice(0, 1), ['ls /run/nvidia/driver: present']);
    const notLoaded = only(d.findings, 'peermem.not-loaded');
    assert.deepEqual(notLoaded.fixes, []);
    assert.match(notLoaded.detail, /ClusterPolicy/);
    assert.ok(!ids(d.findings).includes('peermem.missing'));
    assert.ok(!ids(d.findings).includes('peermem.not-persistent'));
    assert.ok(d.findings.every((f) => f.fixes.length === 0));
  });
});
