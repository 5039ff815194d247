// A hostile host names its RDMA device after a shell command (`m;id>/tmp/pwn;`): every parser that reads
// device names (ibv_devinfo, the probe's sysfs read, show_gids, nvidia-smi's NIC Legend) refuses it with
// the line that holds it, so the name never reaches a suggested NCCL_IB_HCA or a copied line. The names
// are generated here from every character a shell or NCCL's list syntax gives a meaning to.
import * as assert from 'node:assert/strict';
import { isDeviceName } from '../../../src/core/parsers/deviceName';
import { parseIbvDevinfo } from '../../../src/core/parsers/ibvDevinfo';
import { parseShowGids } from '../../../src/core/parsers/showGids';
import { parseTopo } from '../../../src/core/parsers/topo';
import { parsePciSysfs } from '../../../src/core/probe/pciSysfs';
import { expectError, expectOk, readFixture } from '../../support/parsing';
import { labSysfsText } from '../topology/pcie/labSysfs';

/** `m<c>x` for every ASCII character a shell, NCCL_IB_HCA (`,` `^` `=`) or a terminal treats specially, plus non-ASCII. */
function hostileNames(): string[] {
  const special = [...';|&$`\'"\\<>(){}[]*?~#!=,^% /', '\u001b', '\u00e9', '\u202e'];
  return [...special.map((c) => `m${c}x`), 'm;id>/tmp/pwn;', '$(reboot)', 'a'.repeat(65)];
}

/** Replaces every whole `mlx5_0` (not `mlx5_01`) by `name`. */
function renamed(text: string, name: string): string {
  return text.replace(/mlx5_0(?![0-9])/g, () => name);
}

describe('RDMA device names from a host', () => {
  it('accepts the names real drivers give', () => {
    for (const name of ['mlx5_0', 'mlx5_bond_0', 'rxe0', 'irdma-ens801f0', 'efa_0', 'hfi1_0', 'bnxt_re0', 'mlx4_1', 'siw0', 'qedr0'])
      assert.ok(isDeviceName(name), name);
  });

  it('refuses names a shell or NCCL_IB_HCA would read as syntax', () => {
    for (const name of hostileNames()) assert.equal(isDeviceName(name), false, JSON.stringify(name));
  });

  it('ibv_devinfo: a hostile hca_id fails the parse at its line', () => {
    const text = readFixture('ibv', 'mlx5-connectx6-ib-verbose-vv-2dev-port-down.txt');
    expectOk(parseIbvDevinfo(text));
    for (const name of hostileNames().filter((n) => n.trim() === n)) {
      expectError(parseIbvDevinfo(renamed(text, name)), 1, /RDMA device name .* refused/);
    }
  });

  it("the probe's sysfs read: a hostile /sys/class/infiniband entry fails the parse at its line", () => {
    const text = labSysfsText('hgx-acs');
    expectOk(parsePciSysfs(text));
    const line = text.split('\n').findIndex((l) => l.startsWith('ib\tmlx5_0\t')) + 1;
    for (const name of hostileNames().filter((n) => !/[\t/]/.test(n))) {
      expectError(parsePciSysfs(renamed(text, name)), line, /RDMA device name .* refused/);
    }
  });

  it('show_gids: a hostile DEV column fails the parse at its line', () => {
    const text = readFixture('show-gids', 'cx6-mlx5_0-two-link-local-ipv6-plus-ipv4-spectrumscale.txt');
    for (const name of hostileNames().filter((n) => !/\s/.test(n))) {
      expectError(parseShowGids(renamed(text, name)), 3, /RDMA device name .* refused/);
    }
  });

  it('nvidia-smi topo -m: a hostile NIC Legend entry fails the parse at its line, naming the NIC', () => {
    const text = readFixture('topo', 'dgx-a100-epyc-nic-legend.txt');
    const line = text.split('\n').findIndex((l) => l.trim() === 'NIC0: mlx5_0') + 1;
    assert.ok(line > 0);
    for (const name of hostileNames().filter((n) => !/\s/.test(n))) {
      const parsed = parseTopo(text.replace('NIC0: mlx5_0', `NIC0: ${name}`));
      expectError(parsed, line, /NIC0: RDMA device name .* refused/);
    }
  });
});
