// Where the demo host's recordings are for the CLI: media/demo beside dist/ (the package), or beside
// src/ when the CLI runs from source.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function demoDir(): string {
  const candidates = [path.join(__dirname, '../media/demo'), path.join(__dirname, '../../media/demo')];
  return candidates.find((d) => fs.existsSync(path.join(d, 'host'))) ?? candidates[0];
}
