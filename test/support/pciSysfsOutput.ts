// What the probe's sysfs read (src/core/probe/pciSysfs.ts PCI_SYSFS_COMMAND) prints on a host whose PCI
// tree is a sysfs.json (the lab's format, test/lab/sysfs.ts): the tree is built under a temporary folder
// and the real command runs over it with its /sys paths moved there, so the text is the command's own.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PCI_SYSFS_COMMAND } from '../../src/core/probe/pciSysfs';
import { SysfsSpec, buildSysfs } from '../lab/sysfs';

export function pciSysfsOutput(spec: SysfsSpec): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-pci-tree-'));
  try {
    buildSysfs(spec, root);
    const command = PCI_SYSFS_COMMAND.split('/sys/').join(`${root}/sys/`);
    return execFileSync('sh', ['-c', command], { encoding: 'utf8' }).split(root).join('');
  } finally {
    fs.chmodSync(root, 0o700);
    fs.rmSync(root, { recursive: true, force: true });
  }
}
