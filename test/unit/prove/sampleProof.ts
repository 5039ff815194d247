// A proof of the healthy lab host's GPU5 without a lab: host memory and --use_cuda measured from
// real perftest reports, or --use_cuda failing with perftest's real MR error (fixtures), dma-buf skipped.
import { DEFAULT_PROVE_OPTIONS, ProofReport, runProof } from '../../../src/core/prove';
import { fixture } from '../diagnosis/hostReport';
import { healthyHost } from './proofHosts';

/**
 * The recorded run measured the GPU at PCIe D5:00 of its own machine; prove checks perftest's "PCIe address"
 * line names the GPU meant (outcome.ts), so the stand-in says GPU5's address (0000:ab:00.0) there instead.
 */
const onGpu5 = (output: string) => output.replace('PCIe address is D5:00', 'PCIe address is AB:00');

export async function sampleProof(peermem: 'works' | 'fails'): Promise<ProofReport> {
  const cuda =
    peermem === 'works'
      ? 'perftest/write-bw-cuda-a100-ib-t9k-client-all-sizes.txt'
      : 'perftest/write-bw-cuda-mr-failure-error14-excerpt.txt';
  return runProof({
    host: await healthyHost(),
    peer: null,
    options: { ...DEFAULT_PROVE_OPTIONS, gpus: [5] },
    confirmBusy: async () => true,
    execute: async (ms, done) =>
      ms.forEach((m) =>
        done(m, {
          client: {
            exitCode: m.mode === 'host' || peermem === 'works' ? 0 : 1,
            output: m.mode === 'host' ? fixture('perftest/write-bw-host-ib-t9k-client-all-sizes.txt') : onGpu5(fixture(cuda)),
          },
          server: { exitCode: 0, output: '' },
          command: 'x',
        }),
      ),
    now: () => new Date(0),
  });
}
