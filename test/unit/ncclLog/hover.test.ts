// What hovering an NCCL log line explains, on lines of real logs: the header, each transport name of a
// connection line with the NCCL source that prints it, and the line's kind elsewhere.
import * as assert from 'node:assert/strict';
import { ncclLogHoverAt } from '../../../src/core/ncclLog/hover';
import { readFixture } from '../../support/parsing';

const line = (name: string, n: number) => readFixture('nccl-log', name).split(/\r\n|\r|\n/)[n - 1];
const PXN_LOG = 'roce-plugin-pxn-gdrdma-shared-cumem-nccl2.26.5.txt';

/** The hover on the first character of `word` on the line, as [explained text, titles, sources]. */
function hoverOn(text: string, word: string, nth = 0) {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(word, at + 1);
  assert.ok(at >= 0, `${word} in ${text}`);
  const h = ncclLogHoverAt(text, at);
  assert.ok(h, `a hover on ${word}`);
  return { text: text.slice(h.start, h.end), titles: h.explanations.map((e) => e.title), sources: h.explanations.map((e) => e.source) };
}

describe('NCCL log hovers', () => {
  // vm-host38:33958:34017 [1] NCCL INFO Channel 01/1 : 3[0] -> 0[1] [send] via NET/NCCL RDMA Plugin v6/0(2)/GDRDMA/Shared
  const pxn = line(PXN_LOG, 81);

  it('explains the header, from the host name to the level', () => {
    const h = hoverOn(pxn, 'vm-host38');
    assert.equal(h.text, 'vm-host38:33958:34017 [1] NCCL INFO ');
    assert.deepEqual(h.titles, ['NCCL log header']);
    assert.match(h.sources[0], /src\/debug\.cc ncclDebugLog/);
  });

  it('explains GDRDMA, the PXN proxy rank and /Shared, each with src/transport/net.cc, then the connection line', () => {
    assert.deepEqual(hoverOn(pxn, '/GDRDMA').titles, ['GDRDMA', 'Channel connection']);
    assert.equal(hoverOn(pxn, '(2)').text, '(2)');
    assert.deepEqual(hoverOn(pxn, '(2)').titles, ['PXN (proxy rank)', 'Channel connection']);
    assert.deepEqual(hoverOn(pxn, '/Shared').titles, ['/Shared', 'Channel connection']);
    assert.match(hoverOn(pxn, '/GDRDMA').sources[0], /NVIDIA\/nccl src\/transport\/net\.cc/);
    // A plugin's name holds spaces: the whole "NET/NCCL RDMA Plugin v6" is one token.
    assert.deepEqual([hoverOn(pxn, 'Plugin').text, hoverOn(pxn, 'Plugin').titles[0]], ['NET/NCCL RDMA Plugin v6', 'Network plugin']);
    assert.deepEqual(hoverOn(pxn, 'Channel').titles, ['Channel connection']);
  });

  it("explains P2P/IPC behind mpirun's prefix, P2P/CUMEM/read behind a CloudWatch timestamp, NET/Socket and NET/IB", () => {
    const ipc = hoverOn(line('efa-ofi-plugin-nccl2.4-mpirun-ring-warn-cut.txt', 2), 'P2P/IPC');
    assert.deepEqual([ipc.text, ipc.titles[0]], ['P2P/IPC', 'P2P/IPC']);
    assert.match(ipc.sources[0], /src\/transport\/p2p\.cc/);
    const cumem = line('efa-aws-libfabric-cloudwatch-timestamp-prefix-gdrdma-cut.txt', 8);
    assert.deepEqual(hoverOn(cumem, 'P2P/CUMEM').titles[0], 'P2P/CUMEM');
    assert.deepEqual(hoverOn(cumem, '/read').titles[0], '/read');
    const ib = readFixture('nccl-log', 'ib-no-module-2-containers-part2-channels-cut.txt')
      .split('\n')
      .find((l) => l.includes('via NET/IB/'));
    assert.ok(ib);
    assert.deepEqual(hoverOn(ib, 'NET/IB').titles, ['NET/IB', 'Channel connection']);
  });

  it('explains SHM and NET/Socket connections (formats of src/transport/shm.cc and net.cc, formatted by hand)', () => {
    const shm = 'gpu01:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct';
    assert.deepEqual(hoverOn(shm, 'SHM').titles, ['SHM', 'Channel connection']);
    assert.match(hoverOn(shm, 'SHM').sources[0], /src\/transport\/shm\.cc/);
    const socket = 'gpu01:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0';
    assert.deepEqual(hoverOn(socket, 'NET/Socket').titles, ['NET/Socket', 'Channel connection']);
    assert.match(hoverOn(socket, 'NET/Socket').sources[0], /src\/transport\/net_socket\.cc/);
  });

  it("explains DMABUF in the HPC-X plugin's HCA line (Mellanox nccl-rdma-sharp-plugins src/p2p_plugin.c format, formatted by hand)", () => {
    const text = "gpu01:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0";
    assert.deepEqual(hoverOn(text, 'DMABUF').titles, ['DMABUF', 'GPU Direct RDMA for one NIC']);
    assert.deepEqual(hoverOn(text, 'enabled').titles, ['GPU Direct RDMA for one NIC']);
  });

  it('explains the kind of other lines: Using network, HCA Disabled, DMA-BUF, NCCL WARN, version', () => {
    assert.deepEqual(hoverOn(line('socket-fallback-no-libibverbs-1-host-cut.txt', 1), 'Socket').titles, ['Network transport']);
    assert.deepEqual(hoverOn(line('ib-no-module-2-containers-part1-start-cut.txt', 6), 'Disabled').titles, ['GPU Direct RDMA for one NIC']);
    const dmabuf = readFixture('nccl-log', 'ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5.txt')
      .split('\n')
      .find((l) => l.includes('DMA-BUF is available'));
    assert.ok(dmabuf);
    assert.deepEqual(hoverOn(dmabuf, 'DMA-BUF').titles, ['DMA-BUF on a GPU']);
    assert.deepEqual(hoverOn(line('efa-ofi-plugin-nccl2.4-mpirun-ring-warn-cut.txt', 14), "Couldn't").titles, ['NCCL WARN']);
    const version = readFixture('nccl-log', 'ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5.txt')
      .split('\n')
      .find((l) => /NCCL version 2\.16\.5/.test(l));
    assert.ok(version);
    assert.deepEqual(hoverOn(version, '2.16.5').titles, ['NCCL version']);
  });

  it("has nothing to say about other programs' lines or past the end of NCCL's text", () => {
    const banner = line('ib-no-module-2-containers-part1-start-cut.txt', 1);
    assert.equal(ncclLogHoverAt(banner, 3), null);
    assert.equal(ncclLogHoverAt(pxn, pxn.length + 2), null);
  });

  it('explains a "No device found" line as that, not as the NIC list it shares a kind with (fixture socket-nccl2.5.6-…)', () => {
    const text = line('socket-nccl2.5.6-mpirun-tag-output-no-ib-device-cut.txt', 3);
    const h = hoverOn(text, 'No device found');
    assert.deepEqual(h.titles, ['No RDMA device for this net']);
    assert.match(h.sources[0], /ncclIbInit/);
    const list = hoverOn(line('roce-8gpu-nccl2.27.5-aws-ofi-plugin-fallback-init-cut.txt', 35), '[RO]');
    assert.deepEqual(list.titles, ['NICs NCCL will use']);
  });
});
