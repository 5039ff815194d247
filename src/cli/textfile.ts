// Writes metrics where node_exporter's textfile collector reads them (--collector.textfile.directory):
// atomically, as its documentation asks, so a scrape never reads half a file. The text goes to a
// temporary file in the same directory (a name not ending in `.prom`, which the collector skips), is
// flushed, then renamed over `<dir>/<name>.prom` (rename(2) within one filesystem is atomic).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { t } from '../core/l10n';

export class TextfileError extends Error {}

/** Writes `text` to `dir/name` atomically; throws TextfileError saying what failed and where. */
export function writeTextfile(dir: string, name: string, text: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new TextfileError(t('--textfile-dir {0}: no such directory', dir));
  }
  if (!stat.isDirectory()) throw new TextfileError(t('--textfile-dir {0}: not a directory', dir));
  const target = path.join(dir, name);
  const temp = path.join(dir, `.${name}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  try {
    // wx: never follow or reuse something already at the temporary name.
    const fd = fs.openSync(temp, 'wx', 0o644);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (e) {
    fs.rmSync(temp, { force: true });
    throw new TextfileError(t('cannot write {0}: {1}', target, (e as Error).message));
  }
  return target;
}
