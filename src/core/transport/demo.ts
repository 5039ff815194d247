// The demo host: one 8× H100 HGX node, replayed from the recordings in media/demo (what each is and
// where it comes from: media/demo/SOURCES.md; most are real outputs, the rest ASSEMBLED from named real
// data so that every output agrees with the others). It shows the most common failure: nvidia_peermem
// is installed but not loaded and not loaded at boot, so NCCL stages every transfer through host memory;
// and GPU1's own NIC (mlx5_1) has its port down, so NCCL relays GPU1's traffic through an NVLink peer.
//
// The demo has a state the quick fixes change (in memory, per DemoHost): once load-peermem "ran", the
// probe replays the recordings of media/demo/peermem-loaded over those of media/demo/host; once
// persist-peermem "ran", /etc/modules-load.d shows the file it wrote. reset() restores the recordings.
// Layout: media/demo/host/<command id>.txt (.err, .rc), as `diagnose --from` reads a folder.
import * as path from 'node:path';
import { ProbeRunner } from '../probe/runProbe';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../probe/commands';
import { SavedOutput, readSavedFolder, savedOutputsRunner } from './saved';

export const DEMO_HOST_NAME = 'demo-hgx-h100 (replayed)';
/** The login user of the replayed host: uid 1000 with passwordless sudo (media/demo/host/sudo-n.txt). */
export const DEMO_USER = 'demo';

export interface DemoState {
  /** `modprobe nvidia_peermem` ran: lsmod, /sys/module and memory_peers show it loaded and registered. */
  readonly peermemLoaded: boolean;
  /** Files the persist fix wrote under /etc/modules-load.d, by absolute path. */
  readonly written: Readonly<Record<string, string>>;
}

export const INITIAL_DEMO_STATE: DemoState = { peermemLoaded: false, written: {} };

const MODULES_LOAD_D = '/etc/modules-load.d/';

export class DemoHost {
  private state: DemoState = INITIAL_DEMO_STATE;

  /** `dir`: the demo folder (media/demo), holding host/ and peermem-loaded/. */
  constructor(readonly dir: string) {}

  get current(): DemoState {
    return this.state;
  }

  update(next: DemoState): void {
    this.state = next;
  }

  /** Back to the recordings as they are: nothing loaded, nothing written. */
  reset(): void {
    this.state = INITIAL_DEMO_STATE;
  }

  /** The probe over the demo's recordings in its current state. */
  runner(): ProbeRunner {
    return savedOutputsRunner((id, maxBytes) => this.read(id, maxBytes), 'demo');
  }

  /** A recording of the host as first replayed (host/), whatever the state. */
  recorded(id: string, maxBytes = DEFAULT_MAX_OUTPUT_BYTES): Promise<SavedOutput | undefined> {
    return readSavedFolder(path.join(this.dir, 'host'), id, maxBytes);
  }

  private async read(id: string, maxBytes: number): Promise<SavedOutput | undefined> {
    const loaded = this.state.peermemLoaded ? await readSavedFolder(path.join(this.dir, 'peermem-loaded'), id, maxBytes) : undefined;
    const saved = loaded ?? (await this.recorded(id, maxBytes));
    if (id !== 'modules-load' || saved === undefined) return saved;
    // The probe prints each modules-load.d file after a `==> path <==` header (headedFiles, commands.ts);
    // a file the fix wrote sorts after the recorded modules.conf, as the shell's glob would list it.
    const written = Object.entries(this.state.written)
      .filter(([p]) => p.startsWith(MODULES_LOAD_D))
      .sort(([a], [b]) => a.localeCompare(b));
    const extra = written.map(([p, content]) => `==> ${p} <==\n${content}\n`).join('');
    return { ...saved, stdout: Buffer.concat([saved.stdout, Buffer.from(extra)]) };
  }
}
