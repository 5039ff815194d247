// GPUDirect RDMA health as metrics and as a Node Problem Detector answer, from hosts probed from real
// saved outputs (the diagnosis tests' presets) through the same snapshot the CLI uses.
import * as assert from 'node:assert/strict';
import { formatExposition } from '../../../src/core/metrics/exposition';
import { healthFamilies, HostLabels } from '../../../src/core/metrics/healthMetrics';
import { NPD_MAX_OUTPUT_BYTES, NPD_OK, NPD_PROBLEM, NPD_UNKNOWN, npdStatus } from '../../../src/core/metrics/npd';
import { HostSnapshot, unreachedSnapshot } from '../../../src/core/watch/snapshot';
import { snapshotOf } from '../watch/snapshots';
import { HEALTHY, NO_PEERMEM } from '../diagnosis/hosts';
import { pcieHost } from '../diagnosis/pcieHost';
import { proofFamilies } from '../../../src/core/metrics/proofMetrics';
import { sampleProof } from '../prove/sampleProof';

const byHost: HostLabels = (s) => ({ host: s.host });

/** `name{labels} value` lines of one family. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`));
}

describe('health metrics', () => {
  let healthy: HostSnapshot;
  let noPeermem: HostSnapshot;
  let hgx: HostSnapshot;
  before(async () => {
    healthy = await snapshotOf(HEALTHY, 'gpu01');
    noPeermem = await snapshotOf(NO_PEERMEM, 'gpu02');
    hgx = await snapshotOf(pcieHost({ patch: { '0000:19:00.0': { current_link_width: '8' } } }), 'hgx01');
  });

  it('gives per GPU its verdict and its NIC under labels that identify the GPU only (DCGM exporter names)', () => {
    const text = formatExposition(healthFamilies([healthy, noPeermem], byHost));
    const gdr = samples(text, 'gdr_doctor_gpu_gdr');
    assert.equal(gdr.length, healthy.gpus.length + noPeermem.gpus.length);
    assert.ok(
      gdr.includes(
        'gdr_doctor_gpu_gdr{host="gpu01",gpu="0",pci_bus_id="00000000:18:00.0",UUID="GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1"} 1',
      ),
    );
    assert.ok(
      gdr.includes(
        'gdr_doctor_gpu_gdr{host="gpu02",gpu="0",pci_bus_id="00000000:18:00.0",UUID="GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1"} 0',
      ),
    );
    // The same GPU on both hosts has the same labels but for the host: the answer is the value, never a label.
    const labelsOf = (line: string) => line.slice(line.indexOf(',') + 1, line.lastIndexOf('}'));
    assert.deepEqual(
      gdr.filter((l) => l.includes('host="gpu01"')).map(labelsOf),
      gdr.filter((l) => l.includes('host="gpu02"')).map(labelsOf),
    );
    const info = samples(text, 'gdr_doctor_gpu_nic_info').filter((l) => l.includes('host="gpu01",gpu="0",'));
    assert.deepEqual(
      info.map((l) => /nic="([^"]*)",path="([^"]*)"/.exec(l)?.slice(1).join(' ')),
      healthy.gpus[0].nics.map((n) => `${n} ${healthy.gpus[0].path}`),
    );
  });

  it('counts findings per id and severity, and per severity with zeros, for each host', () => {
    const text = formatExposition(healthFamilies([healthy, noPeermem], byHost));
    assert.ok(
      samples(text, 'gdr_doctor_findings').includes('gdr_doctor_findings{host="gpu02",severity="error",id="peermem.not-loaded"} 1'),
    );
    assert.ok(!samples(text, 'gdr_doctor_findings').some((l) => l.includes('host="gpu01"') && l.includes('peermem.not-loaded')));
    const bySeverity = samples(text, 'gdr_doctor_findings_by_severity');
    assert.ok(bySeverity.includes('gdr_doctor_findings_by_severity{host="gpu01",severity="error"} 0'));
    assert.ok(bySeverity.includes('gdr_doctor_findings_by_severity{host="gpu02",severity="error"} 1'));
    assert.ok(
      samples(text, 'gdr_doctor_peer_memory_module_loaded').includes(
        'gdr_doctor_peer_memory_module_loaded{host="gpu02",module="nvidia_peermem"} 0',
      ),
    );
  });

  it('gives every GPU and RDMA NIC link its trained and maximum width and speed, from sysfs', () => {
    const text = formatExposition(healthFamilies([hgx], byHost));
    // GPU0 (0000:19:00.0) trained at x8 in this variant of the lab's HGX tree; the others at x16.
    const widths = samples(text, 'gdr_doctor_pcie_link_width');
    assert.ok(widths.includes('gdr_doctor_pcie_link_width{host="hgx01",device="GPU0",pci_bus_id="00000000:19:00.0"} 8'), widths.join('\n'));
    assert.ok(
      widths.filter((l) => !l.includes('"GPU0"')).every((l) => l.endsWith(' 16')),
      widths.join('\n'),
    );
    assert.ok(widths.some((l) => l.includes('device="mlx5_0"')));
    assert.equal(samples(text, 'gdr_doctor_pcie_link_width').length, hgx.links.length);
    assert.equal(samples(text, 'gdr_doctor_pcie_link_max_width').length, hgx.links.length);
    assert.ok(samples(text, 'gdr_doctor_pcie_link_speed_gt_per_second').every((l) => / (2\.5|5|8|16|32|64)$/.test(l)));
  });

  it('reports a host it could not reach as down, with nothing it did not read', () => {
    const down = unreachedSnapshot('gpu09', 'gpu09: connection refused', '2026-01-02T03:04:05.000Z');
    const text = formatExposition(healthFamilies([down, healthy], byHost));
    assert.ok(samples(text, 'gdr_doctor_up').includes('gdr_doctor_up{host="gpu09"} 0'));
    assert.ok(samples(text, 'gdr_doctor_up').includes('gdr_doctor_up{host="gpu01"} 1'));
    assert.ok(
      samples(text, 'gdr_doctor_last_run_timestamp_seconds').includes('gdr_doctor_last_run_timestamp_seconds{host="gpu09"} 1767323045'),
    );
    assert.ok(!text.split('\n').some((l) => l.includes('host="gpu09"') && !/^gdr_doctor_(up|last_run_timestamp_seconds)\{/.test(l)));
  });

  it('writes an unknown verdict as NaN: never 1', () => {
    const unknown: HostSnapshot = { ...healthy, gpus: healthy.gpus.map((g, i) => (i === 0 ? { ...g, gdr: null } : g)) };
    const text = formatExposition(healthFamilies([unknown], byHost));
    assert.match(samples(text, 'gdr_doctor_gpu_gdr')[0], /gpu="0".* NaN$/);
  });
});

describe('Node Problem Detector answer', () => {
  let healthy: HostSnapshot;
  let noPeermem: HostSnapshot;
  before(async () => {
    healthy = await snapshotOf(HEALTHY);
    noPeermem = await snapshotOf(NO_PEERMEM);
  });

  it('OK (0) when every GPU gets GPUDirect RDMA and no finding is an error', () => {
    assert.deepEqual(npdStatus(healthy), { exitCode: NPD_OK, message: 'GPUDirect RDMA OK: GDR 8/8 GPUs' });
  });

  it('a problem (1) for an error finding, naming it', () => {
    assert.deepEqual(npdStatus(noPeermem), { exitCode: NPD_PROBLEM, message: 'GPUDirect RDMA problem: GDR 0/8 GPUs; peermem.not-loaded' });
  });

  it('a problem (1) for a GPU without GPUDirect RDMA even without an error', () => {
    const far: HostSnapshot = { ...healthy, gpus: healthy.gpus.map((g) => (g.index >= 6 ? { ...g, gdr: false } : g)) };
    assert.deepEqual(npdStatus(far), { exitCode: NPD_PROBLEM, message: 'GPUDirect RDMA problem: GDR 6/8 GPUs (no GDR: GPU6,GPU7)' });
  });

  it('unknown (2), never OK, when a verdict rests on facts not read, the probe was cut, or the host not reached', () => {
    const unknown = { ...healthy, gpus: healthy.gpus.map((g, i) => (i === 0 ? { ...g, gdr: null } : g)) };
    assert.equal(npdStatus(unknown).exitCode, NPD_UNKNOWN);
    assert.equal(npdStatus({ ...healthy, complete: false }).exitCode, NPD_UNKNOWN);
    assert.equal(npdStatus({ ...healthy, gpus: [] }).exitCode, NPD_UNKNOWN);
    assert.equal(npdStatus(unreachedSnapshot('gpu01', 'refused', null)).exitCode, NPD_UNKNOWN);
  });

  it("keeps its line within NPD's default max_output_length, in printable ASCII", () => {
    const many = {
      ...noPeermem,
      findings: Array.from({ length: 30 }, (_, i) => ({ id: `peermem.x${i}\u00e9`, severity: 'error' as const, title: 't' })),
    };
    const { message } = npdStatus(many);
    assert.ok(Buffer.byteLength(message) <= NPD_MAX_OUTPUT_BYTES, message);
    assert.match(message, /^[\x20-\x7e]+\.\.\.$/);
  });
});

describe('proof metrics', () => {
  it("per GPU, NIC port and mode: perftest's Gb/s and its share of the line rate; a failed mode NaN, a skipped one left out", async () => {
    const proof = await sampleProof('works');
    const { client } = proof.gpus[0];
    const works = formatExposition(proofFamilies(proof));
    assert.deepEqual(
      samples(works, 'gdr_doctor_proof_gbps'),
      proof.gpus[0].modes
        .filter((m) => m.status !== 'skipped')
        .map((m) => `gdr_doctor_proof_gbps{host="gpu-a",gpu="5",nic="${client.device}:${client.port}",mode="${m.mode}"} ${m.gbps}`),
    );
    assert.deepEqual(
      proof.gpus[0].modes.map((m) => [m.mode, m.status]),
      [
        ['host', 'ok'],
        ['peermem', 'ok'],
        ['dmabuf', 'skipped'],
      ],
    );
    assert.ok(samples(works, 'gdr_doctor_proof_line_rate_ratio').every((l) => /} (0(\.\d+)?|1)$/.test(l)));
    assert.match(works, /^gdr_doctor_proof_last_run_timestamp_seconds\{host="gpu-a"\} 0$/m);
    const fails = formatExposition(proofFamilies(await sampleProof('fails')));
    assert.match(fails, /^gdr_doctor_proof_gbps\{host="gpu-a",gpu="5",nic="[^"]+",mode="peermem"\} NaN$/m);
  });
});
