// `--from DIR`: the probe over a folder of saved outputs instead of a live host.
//
// Folder layout, one set of files per probe command id (commands.ts), e.g. for `topo`:
//   topo.txt   the command's stdout (required: no file = not collected, reported as not run)
//   topo.err   its stderr (optional)
//   topo.rc    its exit code, a number on one line (optional; without it the output counts as exit 0,
//              the usual case of an output a user saved by hand)
// `collectScript()` writes exactly these files on a host. The folder's files go through the same
// framing and parsing as a live probe, so every report looks alike.
import { promises as fs, statSync } from 'fs';
import * as path from 'path';
import { PROBE_COMMANDS, ProbeCommandSpec } from '../probe/commands';
import { SectionData, encodeDone, encodeHeader, encodeSection } from '../probe/frames';
import { ProbeRunner } from '../probe/runProbe';
import { shQuote } from '../probe/script';
import { errorText } from '../errorText';

export function offlineRunner(dir: string): ProbeRunner {
  return savedOutputsRunner((id) => readSavedFolder(dir, id), 'offline');
}

/** One command's saved output, as `--from DIR` holds it. */
export interface SavedOutput {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  /** null: an exit status that could not be read. */
  readonly exitCode: number | null;
}

/** The saved output of a command id; undefined: not collected. A rejection is reported, not thrown. */
export type SavedOutputs = (id: string) => Promise<SavedOutput | undefined>;

/**
 * A runner that frames saved outputs as a live probe would (the offline folder, the demo host),
 * so every report goes through the same framing and parsing. `source` names it in the stream's header.
 */
export function savedOutputsRunner(read: SavedOutputs, source: string): ProbeRunner {
  return async (_script, request) => {
    const parts = [encodeHeader(request.boundary, { clock: 'none', timeout: 'no', source })];
    const notes: string[] = [];
    for (const spec of request.commands) {
      const saved = await read(spec.id).catch((e: unknown) => {
        notes.push(`${spec.id}: ${errorText(e)}`);
        return undefined;
      });
      if (saved) parts.push(encodeSection(request.boundary, section(spec, saved, request.maxOutputBytes)));
    }
    parts.push(encodeDone(request.boundary));
    return { stdout: Buffer.concat(parts), stderr: Buffer.from(notes.join('\n')), exitCode: 0, connectionLost: false, timedOut: false };
  };
}

function section(spec: ProbeCommandSpec, saved: SavedOutput, cap: number): SectionData {
  return {
    id: spec.id,
    exitCode: saved.exitCode,
    durationMs: 0,
    limitS: spec.timeoutS,
    stdout: saved.stdout.subarray(0, cap),
    stderr: saved.stderr.subarray(0, cap),
    stdoutTruncated: saved.stdout.length > cap,
    stderrTruncated: saved.stderr.length > cap,
  };
}

/** `<id>.txt` (none: not collected), `<id>.err` and `<id>.rc` (absent: exit 0, an output saved by hand). */
export async function readSavedFolder(dir: string, id: string): Promise<SavedOutput | undefined> {
  const base = path.join(dir, id);
  const stdout = await readOptional(`${base}.txt`);
  if (stdout === undefined) return undefined;
  const stderr = (await readOptional(`${base}.err`)) ?? Buffer.alloc(0);
  const rcText = (await readOptional(`${base}.rc`))?.toString('latin1').trim();
  const exitCode = rcText === undefined ? 0 : /^\d{1,3}$/.test(rcText) ? Number(rcText) : null;
  return { stdout, stderr, exitCode };
}

/** The `<id>.txt` files `--from DIR` reads, in probe order. */
export function savedOutputNames(commands: readonly ProbeCommandSpec[] = PROBE_COMMANDS): string[] {
  return commands.map((c) => `${c.id}.txt`);
}

/** Which of those files the folder holds (none: the folder is not a saved probe, or the wrong one). */
export function savedOutputsIn(dir: string, commands: readonly ProbeCommandSpec[] = PROBE_COMMANDS): string[] {
  return savedOutputNames(commands).filter((name) => isFile(path.join(dir, name)));
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

async function readOptional(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * A plain POSIX sh script a user runs on a GPU host to save what `--from DIR` reads:
 *   sh gdr-doctor-collect.sh [DIR]      (DIR defaults to ./gdr-doctor-<hostname>)
 * It runs the probe's commands one after another (read-only, no root), each under `timeout` when
 * the host has one, and writes <id>.txt, <id>.err and <id>.rc for each.
 */
export function collectScript(commands: readonly ProbeCommandSpec[] = PROBE_COMMANDS): string {
  return [
    '#!/bin/sh',
    '# gdr-doctor: saves the outputs `gdr-doctor diagnose --from DIR` reads. Read-only; needs no root.',
    'LC_ALL=C; export LC_ALL',
    'PATH=$PATH:/usr/sbin:/sbin; export PATH',
    'DIR=${1:-gdr-doctor-$(hostname 2>/dev/null || uname -n)}',
    'mkdir -p "$DIR" || exit 1',
    'TO=; if command -v timeout >/dev/null 2>&1 && timeout 10 true >/dev/null 2>&1; then TO=timeout; fi',
    'run() { if [ -n "$TO" ]; then timeout "$2" sh -c "$3"; else sh -c "$3"; fi </dev/null >"$DIR/$1.txt" 2>"$DIR/$1.err"; echo $? >"$DIR/$1.rc"; }',
    ...commands.map((c) => `run ${c.id} ${c.timeoutS} ${shQuote(c.command)}`),
    'echo "gdr-doctor: outputs saved in $DIR"',
    '',
  ].join('\n');
}
