// A relayed fleet whose command outputs were kept on disk (relay/spill.ts) keeps only what its summary
// needs in memory: its metrics must still come from each host's whole report (GPU UUIDs, modules),
// read back, and equal the metrics of the same fleet held in memory. Through the real pdsh.
import * as assert from 'node:assert/strict';
import { printFleet } from '../../../src/cli/fleetOutput';
import { RelaySpill, relayDiagnose } from '../../../src/core/fleet/relay';
import type { FleetHostResult } from '../../../src/core/fleet/types';
import { FakeHost, H100_STUBS } from '../probe/fakeHost';
import { localLogin, makeLoginNode } from '../fleet/relayLocal';

async function metricsOf(results: readonly FleetHostResult[]): Promise<string[]> {
  const out: string[] = [];
  const io = { stdout: (t: string) => void out.push(t), stderr: () => undefined, readInput: () => '' };
  await printFleet(results, io, { json: false, each: false, health: { format: 'prometheus' } });
  // The time of the run differs between the two fleets; every other series must not.
  return out
    .join('')
    .split('\n')
    .filter((l) => !l.startsWith('gdr_doctor_last_run_timestamp_seconds'));
}

describe('metrics of a fleet whose outputs were kept on disk', function () {
  this.timeout(120_000);

  it('are those of the same fleet held in memory: UUIDs and modules read back', async () => {
    const host: FakeHost = makeLoginNode(H100_STUBS);
    const spill = await RelaySpill.create();
    try {
      const opts = { tool: 'pdsh' as const, loginHost: 'login', nodes: 'n[1-2]' };
      const plain = await metricsOf(await relayDiagnose(localLogin(host), opts));
      const spilled = await metricsOf(await relayDiagnose(localLogin(host), { ...opts, spill }));
      // Read from nvidia-smi -q and lsmod, whose outputs are what the spill keeps on disk.
      assert.ok(plain.some((l) => /^gdr_doctor_gpu_gdr\{host="n1",.*UUID="GPU-/.test(l)));
      assert.ok(plain.some((l) => /^gdr_doctor_peer_memory_module_loaded\{host="n2",module="nvidia_peermem"\} 0$/.test(l)));
      assert.deepEqual(spilled, plain);
    } finally {
      await spill.remove();
      host.cleanup();
    }
  });
});
