// `--from DIR`: the probe over a folder of saved outputs instead of a live host.
//
// Folder layout, one set of files per probe command id (commands.ts), e.g. for `topo`:
//   topo.txt   the command's stdout (required: no file = not collected, reported as not run)
//   topo.err   its stderr (optional)
//   topo.rc    its exit code, a number on one line (optional; without it the output counts as exit 0,
//              the usual case of an output a user saved by hand)
// `collectScript()` writes exactly these files on a host. The folder's files go through the same
// framing and parsing as a live probe, so every report looks alike.
import { lstatSync } from 'fs';
import * as path from 'path';
import { PROBE_COMMANDS, ProbeCommandSpec } from '../probe/commands';
import { SectionData, encodeDone, encodeHeader, encodeSection } from '../probe/frames';
import { ProbeRunner } from '../probe/runProbe';
import { shQuote } from '../shellText';
import { errorText } from '../errorText';
import { readSavedFile } from './savedFile';

export function offlineRunner(dir: string): ProbeRunner {
  return savedOutputsRunner((id, maxBytes) => readSavedFolder(dir, id, maxBytes), 'offline');
}

/** One command's saved output, as `--from DIR` holds it. */
export interface SavedOutput {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  /** null: an exit status that could not be read. */
  readonly exitCode: number | null;
}

/** The saved output of a command id, each stream up to `maxBytes` + 1; undefined: not collected. A rejection is reported, not thrown. */
export type SavedOutputs = (id: string, maxBytes: number) => Promise<SavedOutput | undefined>;

/**
 * A runner that frames saved outputs as a live probe would (the offline folder, the demo host),
 * so every report goes through the same framing and parsing. `source` names it in the stream's header.
 */
export function savedOutputsRunner(read: SavedOutputs, source: string): ProbeRunner {
  return async (_script, request) => {
    const parts = [encodeHeader(request.boundary, { clock: 'none', timeout: 'no', source })];
    const notes: string[] = [];
    for (const spec of request.commands) {
      const saved = await read(spec.id, request.maxOutputBytes).catch((e: unknown) => {
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

/** Enough of `<id>.rc` for any exit status and its newline. */
const RC_FILE_BYTES = 16;

/**
 * `<id>.txt` (none: not collected), `<id>.err` and `<id>.rc` (absent: exit 0, an output saved by hand); regular
 * files only, each read up to `maxBytes` + 1 (savedFile.ts).
 */
export async function readSavedFolder(dir: string, id: string, maxBytes: number): Promise<SavedOutput | undefined> {
  const base = path.join(dir, id);
  const stdout = await readSavedFile(`${base}.txt`, maxBytes);
  if (stdout === undefined) return undefined;
  const stderr = (await readSavedFile(`${base}.err`, maxBytes)) ?? Buffer.alloc(0);
  const rcText = (await readSavedFile(`${base}.rc`, RC_FILE_BYTES))?.toString('latin1').trim();
  const exitCode = rcText === undefined ? 0 : /^\d{1,3}$/.test(rcText) ? Number(rcText) : null;
  return { stdout, stderr, exitCode };
}

/** The `<id>.txt` files `--from DIR` reads, in probe order. */
export function savedOutputNames(commands: readonly ProbeCommandSpec[] = PROBE_COMMANDS): string[] {
  return commands.map((c) => `${c.id}.txt`);
}

/**
 * Which of those names the folder holds (none: the folder is not a saved probe, or the wrong one). A link or a
 * special file counts, without being followed: reading it is refused later, with the reason.
 */
export function savedOutputsIn(dir: string, commands: readonly ProbeCommandSpec[] = PROBE_COMMANDS): string[] {
  return savedOutputNames(commands).filter((name) => isEntry(path.join(dir, name)));
}

function isEntry(file: string): boolean {
  try {
    return !lstatSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A plain POSIX sh script a user runs on a GPU host to save what `--from DIR` reads:
 *   sh gdr-doctor-collect.sh [DIR]      (DIR, a folder that must not exist yet, defaults to ./gdr-doctor-<hostname>)
 * It runs the probe's commands one after another (read-only, no root), each under `timeout` when
 * the host has one, and writes <id>.txt, <id>.err and <id>.rc for each.
 */
export function collectScript(commands: readonly ProbeCommandSpec[] = PROBE_COMMANDS): string {
  return [
    '#!/bin/sh',
    '# gdr-doctor: saves the outputs `gdr-doctor diagnose --from DIR` reads. Read-only; needs no root.',
    'LC_ALL=C; export LC_ALL',
    'PATH=$PATH:/usr/sbin:/sbin; export PATH',
    // Run as root in a shared folder (/tmp), a folder or file another user made first could redirect a write:
    // only a fresh folder (mkdir without -p fails if the name exists), only its owner may read it (umask),
    // and no `>` overwrites a file (set -C).
    'umask 077',
    'set -C',
    'DIR=${1:-gdr-doctor-$(hostname 2>/dev/null || uname -n)}',
    'if [ -e "$DIR" ] || [ -L "$DIR" ]; then echo "gdr-doctor: $DIR exists already: give the name of a folder that does not exist" >&2; exit 1; fi',
    'mkdir -- "$DIR" || exit 1',
    'TO=; if command -v timeout >/dev/null 2>&1 && timeout 10 true >/dev/null 2>&1; then TO=timeout; fi',
    'run() { if [ -n "$TO" ]; then timeout "$2" sh -c "$3"; else sh -c "$3"; fi </dev/null >"$DIR/$1.txt" 2>"$DIR/$1.err"; echo $? >"$DIR/$1.rc"; }',
    ...commands.map((c) => `run ${c.id} ${c.timeoutS} ${shQuote(c.command)}`),
    'echo "gdr-doctor: outputs saved in $DIR"',
    '',
  ].join('\n');
}
