// GPU and RDMA rules on real nvidia-smi and ibv_devinfo outputs.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { commandNotFound } from './constructedInputs';
import { fixture, hostReport, labFile } from './hostReport';
import { HEALTHY, ids, only, problems, without } from './hosts';

describe('diagnosis: GPUs and RDMA devices', () => {
  it('GeForce (nvidia-smi -q brand): gpu.no-gdr-support (error); its 256 MiB BAR1 is moot then', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, 'smi-q': fixture('smi-q/geforce-rtx3090-x2-bar1-256mib-driver560.txt') }));
    const f = only(d.findings, 'gpu.no-gdr-support');
    assert.equal(f.severity, 'error');
    assert.match(f.title, /NVIDIA GeForce RTX 3090/);
    assert.ok(
      f.evidence.some((e) => /^nvidia-smi -q: Product Brand\s+: GeForce$/.test(e)),
      f.evidence.join('\n'),
    );
    // With no GPUDirect RDMA at all, BAR1, peer memory and dma-buf are moot.
    assert.ok(!ids(d.findings).some((id) => id.startsWith('peermem.') || id === 'dmabuf.available' || id === 'bar1.small'));
  });

  it('a T4 (data-center, BAR1 fixed at 256 MiB by the board): bar1.small as info, no BIOS advice', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, 'smi-q': fixture('smi-q/t4-1gpu-vm-passthrough-bar1-256mib-driver530.txt') }));
    const bar1 = only(d.findings, 'bar1.small');
    assert.equal(bar1.severity, 'info');
    assert.match(bar1.detail, /00000000:00:08\.0 \(Tesla T4\): BAR1 256 MiB for 15360 MiB/);
    assert.match(bar1.detail, /fixes BAR1 at 256 MiB: no BIOS setting enlarges it/);
    assert.doesNotMatch(bar1.detail, /Resizable BAR/);
    assert.ok(
      bar1.evidence.some((e) => /^nvidia-smi -q: Total\s+: 256 MiB$/.test(e)),
      bar1.evidence.join('\n'),
    );
  });

  it('a small BAR1 where there is no NIC: no bar1.small (nothing to do GPUDirect RDMA with)', async () => {
    const d = diagnose(
      await hostReport({
        ...HEALTHY,
        'smi-q': fixture('smi-q/t4-1gpu-vm-passthrough-bar1-256mib-driver530.txt'),
        topo: fixture('topo/rtx5090-2gpu-threadripper-no-nic.txt'),
        ibv: fixture('ibv/no-ib-devices-found-libibverbs-warnings.txt'),
      }),
    );
    assert.ok(ids(d.findings).includes('rdma.none'));
    assert.ok(!ids(d.findings).includes('bar1.small'));
  });

  it('GeForce seen only in --query-gpu names: gpu.no-gdr-support', async () => {
    const d = diagnose(
      await hostReport({ ...without(HEALTHY, 'smi-q'), gpus: fixture('gpus/geforce-rtx4070tisuper-x2-csv-header-crlf.txt') }),
    );
    const f = only(d.findings, 'gpu.no-gdr-support');
    assert.match(f.title, /NVIDIA GeForce RTX 4070 Ti SUPER/);
    assert.ok(
      f.evidence[0].startsWith(
        'nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv: 0, NVIDIA GeForce RTX 4070 Ti SUPER',
      ),
    );
  });

  it('data-center GPUs with a large BAR1 raise neither', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, 'smi-q': fixture('smi-q/h100-80gb-hbm3-x8-driver565.txt') }));
    assert.ok(!ids(d.findings).includes('gpu.no-gdr-support'));
    assert.ok(!ids(d.findings).includes('bar1.small'));
  });

  it('no GPU (nvidia-smi: No devices were found): gpu.none, and GPU rules stay silent', async () => {
    const none = fixture('gpus/no-devices-found.txt');
    const d = diagnose(await hostReport({ ...HEALTHY, gpus: none, 'smi-q': none, topo: { stdout: none, rc: 6 } }));
    const f = only(d.findings, 'gpu.none');
    assert.equal(f.title, 'No NVIDIA GPU is visible');
    assert.deepEqual(f.evidence, ['nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv: No devices were found']);
    assert.deepEqual(problems(d.findings), ['error gpu.none']);
  });

  it('driver not loaded: gpu.none says so', async () => {
    const down = fixture('gpus/driver-not-loaded-couldnt-communicate.txt');
    const d = diagnose(await hostReport({ ...HEALTHY, gpus: { stdout: down, rc: 9 } }));
    assert.equal(only(d.findings, 'gpu.none').title, 'The NVIDIA driver is not running');
  });

  it('no RDMA device (ibv_devinfo: No IB devices found; topo without NIC columns): rdma.none, pairs without NICs', async () => {
    const d = diagnose(
      await hostReport({
        ...HEALTHY,
        topo: fixture('topo/rtx5090-2gpu-threadripper-no-nic.txt'),
        ibv: { stdout: '', stderr: fixture('ibv/no-ib-devices-found-libibverbs-warnings.txt'), rc: 255 },
      }),
    );
    const f = only(d.findings, 'rdma.none');
    assert.equal(f.severity, 'error');
    assert.ok(f.evidence.includes('ibv_devinfo -v: No IB devices found'));
    assert.ok(!ids(d.findings).some((id) => id.startsWith('peermem.') || id === 'topo.nic-far'));
    assert.deepEqual(
      d.pairs.map((p) => [p.gpu, p.nics.length, p.gdr]),
      [
        ['GPU0', 0, false],
        ['GPU1', 0, false],
      ],
    );
    assert.deepEqual(d.suggestedEnv.env, {});
  });

  it('lab profile no-nic (ibv_devinfo missing, topo without NICs): rdma.none is the only problem', async () => {
    const d = diagnose(
      await hostReport({
        topo: labFile('no-nic', 'out/nvidia-smi_topo_-m.stdout'),
        'modinfo-nvidia': labFile('no-nic', 'modinfo/nvidia.txt'),
        'nvidia-version': labFile('no-nic', 'files/proc/driver/nvidia/version'),
        ibv: commandNotFound('ibv_devinfo'),
        ofed: commandNotFound('ofed_info'),
      }),
    );
    assert.deepEqual(
      problems(d.findings).filter((p) => !p.includes('probe.command-failed')),
      ['error rdma.none'],
    );
    assert.ok(only(d.findings, 'rdma.none').evidence.includes('nvidia-smi topo -m: (no NIC column in the matrix)'));
  });

  it('a device without an active port: rdma.port-down (warning) quoting its state line; the other device is fine', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, ibv: fixture('ibv/mlx5-connectx6-ib-verbose-vv-2dev-port-down.txt') }));
    const f = only(d.findings, 'rdma.port-down');
    assert.equal(f.severity, 'warning');
    assert.equal(f.title, 'No active port on mlx5_1');
    assert.deepEqual(f.evidence, [
      'ibv_devinfo -v: hca_id:\tmlx5_1',
      'ibv_devinfo -v: port:\t1',
      'ibv_devinfo -v: state:\t\t\tPORT_DOWN (1)',
    ]);
    // NCCL skips mlx5_1 (no active port), so GPU0/GPU1, PXB to both, use mlx5_0 only; mlx5_2-7 were not in
    // ibv_devinfo, so no port is named for them. The down device stays out of the suggested NCCL_IB_HCA.
    assert.equal(d.suggestedEnv.env.NCCL_IB_HCA, '=mlx5_0:1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7');
    assert.deepEqual(
      d.pairs[0].nics.map((n) => n.device),
      ['mlx5_0'],
    );
  });

  it('every device has an active port (port 2 down on each): no rdma.port-down', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, ibv: fixture('ibv/mlx4-connectx3-ib-2dev-2port-port2-down.txt') }));
    assert.ok(!ids(d.findings).includes('rdma.port-down'));
  });

  it('RDMA devices without OFED (symbol check not collected): ofed.missing (warning without dma-buf)', async () => {
    const d = diagnose(
      await hostReport({
        ...without(HEALTHY, 'kallsyms-peer'),
        ofed: commandNotFound('ofed_info'),
        'modinfo-nvidia': fixture('modinfo/nvidia-510-proprietary-ubuntu2204-a6000.txt'),
        'memory-peers': '',
        lsmod: fixture('lsmod/talos-connectx4-inbox-rdma-full-with-header.txt'),
        'sys-module-peermem': '',
      }),
    );
    const f = only(d.findings, 'ofed.missing');
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.evidence, ['ofed_info -s: (command not found (exit 127))']);
  });

  it('ofed_info stopped by timeout (exit 124): no ofed.missing, the failed command is reported instead', async () => {
    const d = diagnose(
      await hostReport({
        ...without(HEALTHY, 'kallsyms-peer'),
        ofed: { stdout: '', rc: 124 },
        'modinfo-nvidia': fixture('modinfo/nvidia-510-proprietary-ubuntu2204-a6000.txt'),
        'memory-peers': '',
        lsmod: fixture('lsmod/talos-connectx4-inbox-rdma-full-with-header.txt'),
        'sys-module-peermem': '',
      }),
    );
    assert.ok(!ids(d.findings).includes('ofed.missing'), ids(d.findings).join(', '));
  });
});
