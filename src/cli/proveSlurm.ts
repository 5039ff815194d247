// `gdr-doctor prove <node> <peer> --via LOGIN`: one SSH connection to the login node; the nodes are
// probed and measured by srun there (core/prove/slurm.ts), so they need no SSH from here.
import { openSsh } from '../core/ssh/openSsh';
import { runProof } from '../core/prove';
import { newRunTag } from '../core/prove/direct';
import { probeViaSlurm, slurmExecutor, SlurmNodes } from '../core/prove/slurm';
import { errorText } from '../core/errorText';
import { ProveCliContext, ProveExit, Proven } from './proveContext';
import { cannotReachLine } from './unreachable';
import { t } from '../core/l10n';

export async function proveViaSlurm(login: string, host: string, peer: string, partition: string | undefined, ctx: ProveCliContext, signal: AbortSignal): Promise<Proven | number> {
  const conn = await openSsh(login, ctx.reach, signal).catch((e: unknown) => void ctx.io.stderr(cannotReachLine(login, e)));
  if (conn === undefined) return ProveExit.unreachable;
  try {
    const nodes: SlurmNodes = { login, host, peer, partition };
    const [a, b] = await probeViaSlurm(conn.client, nodes, ctx.nccl, signal);
    const report = await runProof({
      host: a, peer: b, via: login, options: ctx.options, signal, confirmBusy: ctx.confirmBusy,
      execute: slurmExecutor(conn.client, nodes, { tag: newRunTag(), sizeBytes: ctx.options.sizeBytes, durationS: ctx.options.durationS }),
      onProgress: (done, total, what) => ctx.io.stderr(`gdr-doctor: ${t('{0}/{1} measured ({2})', done, total, what)}\n`),
    });
    return { report, user: conn.target.user };
  } catch (e) {
    ctx.io.stderr(`gdr-doctor: ${errorText(e)}\n`);
    return ProveExit.unreachable;
  } finally {
    conn.close();
  }
}
