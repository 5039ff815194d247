import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { escapeMarkdown, explainTopoToken } from '../../../src/core/topology/topoHoverText';
import { TopoDocument, readTopoDocument, topoTokenAt } from '../../../src/core/topology/topoTokens';

function topoDoc(name: string): TopoDocument {
  const text = fs.readFileSync(path.join(__dirname, '../../fixtures/topo', name), 'utf8');
  const doc = readTopoDocument(text);
  assert.ok(doc);
  return doc;
}

/** The hover for the first place `text` appears in the line that starts with `lineStart`. */
function hover(doc: TopoDocument, lineStart: string, text: string): string {
  const line = doc.lines.findIndex((l) => l.startsWith(lineStart));
  const hit = topoTokenAt(doc, line, doc.lines[line].indexOf(text));
  assert.ok(hit, `nothing at "${text}" in line ${line + 1}`);
  return explainTopoToken(hit, doc.topology);
}

/** Markdown with its backslash escapes removed: what the reader sees. */
function shown(markdown: string): string {
  return markdown.replace(/\\(.)/g, '$1');
}

describe('explainTopoToken', () => {
  const seed = topoDoc('seed-xeon-gold-5318y-8gpu-3nic.txt');
  const h200 = topoDoc('h200-hgx-8gpu-12nic-tabs.txt');

  it('seed: a GPU↔NIC PIX cell names both ends with the RDMA device and says GDR is used', () => {
    const text = shown(hover(seed, 'GPU3', 'PIX'));
    assert.match(text, /^\*\*PIX\*\*: GPU3 ↔ NIC2 \(mlx5_2\)/);
    assert.match(
      text,
      /\*\*GDR yes\*\*: Between a GPU and a NIC, NCCL 2\.30\.7 counts a PIX path .*within the default threshold P2C .*ncclTopoCheckGdr/,
    );
    assert.match(text, /NVML level 10 \(NVML_TOPOLOGY_SINGLE\) · NCCL path PIX/);
    assert.match(text, /current drivers \(≈ R450 and later\): “Connection traversing at most a single PCIe bridge”/);
    assert.match(text, /the oldest drivers \(Kepler era\): “Path traverses a PCIe internal switch”/);
  });

  it('H200: GPU4 ↔ NIC0 over SYS is not used; a GPU↔GPU PXB cell gets no pair verdict', () => {
    const sys = shown(hover(h200, 'GPU4', 'SYS'));
    assert.match(sys, /GPU4 ↔ NIC0 \(mlx5_0\)/);
    assert.match(
      sys,
      /\*\*GDR no\*\*: .*beyond the default threshold P2C.*unless NCCL relays the GPU's sends through an NVLink peer nearer the NIC \(PXN\)/,
    );
    const gpuPair = shown(hover(seed, 'GPU0', 'PXB'));
    assert.match(gpuPair, /GPU0 ↔ GPU2/);
    assert.match(
      gpuPair,
      /links two GPUs: no GPUDirect RDMA verdict applies here\. Between a GPU and a NIC, NCCL 2\.30\.7 counts a PXB path/,
    );
  });

  it('NV18 and X: NVLink count, no GDR verdict; the diagonal is the device itself', () => {
    const nv = shown(hover(h200, 'GPU1', 'NV18'));
    assert.match(nv, /Direct NVLink connection, 18 link\(s\) bonded\./);
    assert.match(nv, /NCCL path NVL/);
    assert.doesNotMatch(nv, /GDR (yes|no)/);
    assert.match(nv, /NVLink joins two GPUs: no GPUDirect RDMA verdict applies.*PXN, from NCCL 2\.12/);
    assert.match(shown(hover(h200, 'GPU1', 'X')), /GPU1 itself \(the diagonal\)/);
  });

  it("SOC on a K40m: older drivers' name for SYS, not printed by current drivers", () => {
    const text = shown(hover(topoDoc('k40m-4gpu-mlx4-soc-legend.txt'), 'mlx4_0', 'SOC'));
    assert.match(text, /mlx4_0 ↔ GPU0/);
    assert.match(text, /current drivers \(≈ R450 and later\): not printed \(they print SYS instead\)/);
    assert.match(
      text,
      /older drivers \(before ≈ R450\): “Connection traversing PCIe as well as the SMP link between CPU sockets\(e\.g\. QPI\)”/,
    );
  });

  it('legend lines say whose wording they are and the GDR verdict of the token', () => {
    const current = shown(hover(h200, '  PXB  =', 'PXB'));
    assert.match(current, /\*\*Legend: PXB\*\*/);
    assert.match(current, /This line is the wording of current drivers/);
    assert.match(current, /\*\*GDR yes\*\*: Between a GPU and a NIC, NCCL 2\.30\.7 counts a PXB path/);
    const older = shown(hover(topoDoc('dgx1-v100-direct-mlx5.txt'), '  PXB  =', 'PXB'));
    assert.match(older, /This line is the wording of older drivers \(before ≈ R450\)/);
    const kepler = shown(hover(topoDoc('k80-mlx4-path-traverses-legend-spaces.txt'), '  PHB =', 'PHB'));
    assert.match(kepler, /wording of the oldest drivers \(Kepler era\)/);
    assert.match(kepler, /\*\*GDR no\*\*: Between a GPU and a NIC, NCCL 2\.30\.7 counts a PHB path/);
    const nodeLine = shown(hover(h200, '  NODE =', 'NODE'));
    assert.match(nodeLine, /NVML level 40 \(NVML_TOPOLOGY_NODE\) · NCCL path PHB/);
  });

  it('NIC Legend lines and NIC names list the GPUs NCCL gives the NIC; a GPU name its verdict', () => {
    const nic0 = shown(hover(h200, '  NIC0:', 'NIC0'));
    assert.match(nic0, /\*\*NIC0\*\* is the RDMA device \*\*mlx5_0\*\*/);
    // From a saved matrix alone the NIC side and the GPU model are unread: unknown, not yes.
    assert.match(nic0, /NCCL's NIC for: GPU0 \(GDR unknown\)\./);
    // NIC2 (mlx5_2) is NODE to GPU0-3, which each have a PXB NIC of their own.
    assert.match(shown(hover(h200, '  NIC2:', 'NIC2')), /NCCL gives this NIC to no GPU/);
    const gpu = shown(hover(seed, 'GPU3', 'GPU3'));
    assert.match(gpu, /\*\*GDR unknown\*\*\. GPU3 → mlx5_2 over PIX/);
  });

  it('a hostile NIC Legend entry is refused at parse time; a legal name is still escaped in the hover', () => {
    const doc = topoDoc('h200-hgx-8gpu-12nic-tabs.txt');
    const withNic0 = (name: string) => doc.lines.map((l) => (l === '  NIC0: mlx5_0' ? `  NIC0: ${name}` : l)).join('\n');
    // Device names outside [A-Za-z0-9_.:-] never reach a hover, a link or a shell line (issue 23 item 4).
    assert.strictEqual(readTopoDocument(withNic0('[x](command:workbench.action.terminal.new)<img/src=x>`*_')), null);
    const legal = readTopoDocument(withNic0('mlx5_0:x_'));
    assert.ok(legal);
    const line = legal.lines.findIndex((l) => l.startsWith('  NIC0:'));
    const hit = topoTokenAt(legal, line, 3);
    assert.ok(hit);
    const markdown = explainTopoToken(hit, legal.topology);
    assert.ok(markdown.includes('mlx5\\_0\\:x\\_'), markdown);
    assert.doesNotMatch(markdown, /mlx5_0:x_/);
    assert.strictEqual(escapeMarkdown('a_b#c'), 'a\\_b\\#c');
  });
});
