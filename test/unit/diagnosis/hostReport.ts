// Builds ProbeReports for the diagnosis tests from saved outputs, through the same offline runner
// (`--from DIR`) a user's saved folder goes through: files are framed and parsed like a live probe.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProbeCommandId } from '../../../src/core/probe/commands';
import { offlineRunner } from '../../../src/core/transport/saved';
import { ProbeReport, runProbe } from '../../../src/core/probe/runProbe';
import { FIXTURES, REPO_ROOT } from '../../support/paths';

/** A command's saved output: stdout text, or the three parts (`rc` defaults to 0). */
export type Saved = string | { readonly stdout?: string; readonly stderr?: string; readonly rc?: number };
export type HostFiles = Partial<Record<ProbeCommandId, Saved>>;

export function fixture(rel: string): string {
  return fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
}

/** A recording of a lab profile (test/lab/profiles/<name>/…): real fixture copies, see its README. */
export function labFile(profile: string, rel: string): string {
  return fs.readFileSync(path.join(REPO_ROOT, 'test/lab/profiles', profile, rel), 'utf8');
}

export async function hostReport(files: HostFiles): Promise<ProbeReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-diagnosis-'));
  try {
    for (const [id, saved] of Object.entries(files) as [string, Saved][]) {
      const parts = typeof saved === 'string' ? { stdout: saved } : saved;
      fs.writeFileSync(path.join(dir, `${id}.txt`), parts.stdout ?? '');
      if (parts.stderr !== undefined) fs.writeFileSync(path.join(dir, `${id}.err`), parts.stderr);
      if (parts.rc !== undefined) fs.writeFileSync(path.join(dir, `${id}.rc`), `${parts.rc}\n`);
    }
    return await runProbe(offlineRunner(dir), { host: 'test-host' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
