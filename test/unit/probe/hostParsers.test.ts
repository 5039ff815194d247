// The probe's own small parsers: files printed with headers, and checks read with their exit code.
import * as assert from 'assert';
import { KALLSYMS_NOT_READ, PROBE_COMMANDS, headedFiles } from '../../../src/core/probe/commands';
import { parseHeadedFiles, parseMemoryPeers, parseModulesLoad, parseSysModules, sameModule } from '../../../src/core/probe/headedFiles';
import {
  parseCmdline,
  parseIommuGroups,
  parseKallsymsPeer,
  parseNvPeerMemService,
  parseRunNvidiaDriver,
  parseSudoCheck,
  parseUname,
} from '../../../src/core/probe/hostChecks';
import { SpawnSyncReturns, execFileSync, spawnSync } from 'child_process';
import { labFile } from '../diagnosis/hostReport';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

function outputOf(r: SpawnSyncReturns<string>): { stdout: string; stderr: string; exitCode: number | null } {
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status };
}

function value<T>(r: { ok: true; value: T } | { ok: false; error: { line: number; message: string } }): T {
  if (!r.ok) assert.fail(`line ${r.error.line}: ${r.error.message}`);
  return r.value;
}

function failsAt(r: { ok: boolean; error?: { line: number } }, line: number): void {
  assert.strictEqual(r.ok, false);
  assert.strictEqual(r.error?.line, line);
}

describe('headed files', () => {
  it('reads what headedFiles() prints, and nothing for absent files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-headed-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.conf'), '# comment\nnvidia-peermem\n');
      fs.writeFileSync(path.join(dir, 'b.conf'), 'no-newline-at-end');
      const out = execFileSync('/bin/sh', ['-c', headedFiles([`${dir}/*.conf`, `${dir}/absent`])], { encoding: 'utf8' });
      assert.deepStrictEqual(value(parseHeadedFiles(out, 'test')), [
        { path: `${dir}/a.conf`, line: 1, lines: ['# comment', 'nvidia-peermem'] },
        { path: `${dir}/b.conf`, line: 5, lines: ['no-newline-at-end'] },
      ]);
      assert.deepStrictEqual(
        value(parseModulesLoad(out)).files.map((f) => f.modules),
        [['nvidia-peermem'], ['no-newline-at-end']],
      );
      assert.deepStrictEqual(
        value(parseHeadedFiles(execFileSync('/bin/sh', ['-c', headedFiles([`${dir}/none*`])], { encoding: 'utf8' }), 't')),
        [],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects content before the first header', () => failsAt(parseHeadedFiles('\nstray\n==> /x <==\n', 't'), 2));

  it('reads memory peers and /sys/module files', () => {
    const peers = value(parseMemoryPeers('==> /sys/kernel/mm/memory_peers/nv_mem/version <==\n1.3\n\n'));
    assert.deepStrictEqual(peers.peers, [{ name: 'nv_mem', version: '1.3', path: '/sys/kernel/mm/memory_peers/nv_mem/version' }]);
    failsAt(parseMemoryPeers('==> /etc/passwd <==\nroot\n'), 1);
    const mods = value(
      parseSysModules('==> /sys/module/nvidia_peermem/initstate <==\nlive\n\n==> /sys/module/nvidia_peermem/refcnt <==\n0\n\n'),
    );
    assert.deepStrictEqual(mods.modules, [{ name: 'nvidia_peermem', initstate: 'live', refcnt: 0, version: null }]);
  });

  it('treats - and _ in module names alike', () => {
    assert.ok(sameModule('nvidia-peermem', 'nvidia_peermem'));
    assert.ok(!sameModule('nv_peer_mem', 'nvidia_peermem'));
  });
});

describe('host checks', () => {
  it('sudo -n: root, passwordless, password needed, no sudo', () => {
    assert.strictEqual(value(parseSudoCheck({ stdout: '0\n', stderr: '', exitCode: 0 })).state, 'root');
    assert.strictEqual(value(parseSudoCheck({ stdout: '1000\n', stderr: '', exitCode: 0 })).state, 'passwordless');
    assert.strictEqual(
      value(parseSudoCheck({ stdout: '1000\n', stderr: 'sudo: a password is required\n', exitCode: 1 })).state,
      'password-required',
    );
    assert.strictEqual(
      value(parseSudoCheck({ stdout: '1000\n', stderr: 'sh: 1: sudo: not found\n', exitCode: 127 })).state,
      'not-installed',
    );
    failsAt(parseSudoCheck({ stdout: 'uid=0(root)\n', stderr: '', exitCode: 0 }), 1);
  });

  it('kallsyms: exported, absent, unreadable', () => {
    assert.strictEqual(
      value(parseKallsymsPeer({ stdout: '0000000000000000 T ib_register_peer_memory_client\t[ib_core]\n', stderr: '', exitCode: 0 }))
        .exported,
      true,
    );
    assert.strictEqual(value(parseKallsymsPeer({ stdout: '', stderr: '', exitCode: 1 })).exported, false);
    failsAt(parseKallsymsPeer({ stdout: '', stderr: 'grep: /proc/kallsyms: Permission denied', exitCode: 2 }), 1);
    assert.deepStrictEqual(value(parseKallsymsPeer({ stdout: `${KALLSYMS_NOT_READ} nv_peer_mem\n`, stderr: '', exitCode: 0 })), {
      exported: true,
      lines: [],
      exporters: [],
      impliedBy: 'nv_peer_mem',
    });
    failsAt(parseKallsymsPeer({ stdout: `${KALLSYMS_NOT_READ} something-else\n`, stderr: '', exitCode: 0 }), 1);
  });

  it('kallsyms: the exporting module, ib_core (older MLNX_OFED) or ib_uverbs (recent MLNX_OFED, DOCA-OFED)', () => {
    // The lab's recording: a real grep of an Azure host's kallsyms, OFED's ib_uverbs exporting it (ROCm/rccl#1377).
    const uverbs = labFile('healthy', 'kallsyms/ib_uverbs.txt');
    const parsed = value(parseKallsymsPeer({ stdout: uverbs, stderr: '', exitCode: 0 }));
    assert.deepStrictEqual([parsed.exported, parsed.lines.length, parsed.exporters], [true, 7, ['ib_uverbs']]);
    // Mellanox/nv_peer_memory#79 (comment of 2023-05-17): `__kstrtab_…\t[ib_core]`, a data symbol, names no text export.
    const kstrtab = 'ffffffffa0de25ac r __kstrtab_ib_register_peer_memory_client\t[ib_core]\n';
    assert.deepStrictEqual(value(parseKallsymsPeer({ stdout: kstrtab, stderr: '', exitCode: 0 })).exporters, []);
    // A line of hostile length is still one linear match, and names nothing.
    const long = `0 T ib_register_peer_memory_client\t[${'a'.repeat(100_000)}]\n`;
    assert.deepStrictEqual(value(parseKallsymsPeer({ stdout: long, stderr: '', exitCode: 0 })).exporters, []);
  });

  it('kallsyms: /proc/kallsyms is read only when no peer-memory module is live', () => {
    // The probe's own command, with /sys/module and /proc/kallsyms moved into a temp folder.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-kallsyms-'));
    try {
      const command = PROBE_COMMANDS.find((c) => c.id === 'kallsyms-peer')?.command ?? '';
      assert.match(command, /\/sys\/module\/.*\/proc\/kallsyms/);
      const local = command.replace(/\/sys\/module\//g, `${root}/module/`).replace('/proc/kallsyms', `${root}/kallsyms`);
      const run = () => spawnSync('/bin/sh', ['-c', local], { encoding: 'utf8' });
      fs.writeFileSync(
        path.join(root, 'kallsyms'),
        '0000000000000000 T ib_register_peer_memory_client\t[ib_core]\n0000000000000000 T other\n',
      );
      assert.deepStrictEqual(value(parseKallsymsPeer(outputOf(run()))), {
        exported: true,
        lines: ['0000000000000000 T ib_register_peer_memory_client\t[ib_core]'],
        exporters: ['ib_core'],
      });
      // Loaded but not live (its init failed, or it is going away): still read.
      fs.mkdirSync(path.join(root, 'module/nvidia_peermem'), { recursive: true });
      fs.writeFileSync(path.join(root, 'module/nvidia_peermem/initstate'), 'coming\n');
      assert.strictEqual(value(parseKallsymsPeer(outputOf(run()))).impliedBy, undefined);
      // Live: kallsyms is not opened at all (removed here, so a read would fail).
      fs.writeFileSync(path.join(root, 'module/nvidia_peermem/initstate'), 'live\n');
      fs.rmSync(path.join(root, 'kallsyms'));
      assert.deepStrictEqual(value(parseKallsymsPeer(outputOf(run()))), {
        exported: true,
        lines: [],
        exporters: [],
        impliedBy: 'nvidia_peermem',
      });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('nv_peer_mem service, uname, cmdline, /run/nvidia/driver, iommu groups', () => {
    assert.deepStrictEqual(value(parseNvPeerMemService('is-enabled: disabled\nis-active: inactive\n')), {
      enabled: 'disabled',
      active: 'inactive',
    });
    failsAt(parseNvPeerMemService('is-enabled: enabled\n'), 2);
    assert.deepStrictEqual(value(parseUname('5.15.0-91-generic\n')), { release: '5.15.0-91-generic', major: 5, minor: 15 });
    failsAt(parseUname('Linux\n'), 1);
    failsAt(parseUname('5.15.0\n6.1.0\n'), 2);
    const cmd = value(parseCmdline('BOOT_IMAGE=/vmlinuz root=UUID=ab ro quiet intel_iommu=on iommu=pt foo="a b"\n'));
    assert.deepStrictEqual(cmd.params.slice(3), [
      { name: 'quiet', value: null },
      { name: 'intel_iommu', value: 'on' },
      { name: 'iommu', value: 'pt' },
      { name: 'foo', value: '"a b"' },
    ]);
    assert.deepStrictEqual(value(parseRunNvidiaDriver('absent\n')), { present: false, entries: [] });
    assert.deepStrictEqual(value(parseRunNvidiaDriver('present\nusr\nlib\n')), { present: true, entries: ['usr', 'lib'] });
    failsAt(parseRunNvidiaDriver(''), 1);
    assert.deepStrictEqual(value(parseIommuGroups('0\n')), { count: 0, groups: null });
    assert.deepStrictEqual(value(parseIommuGroups('')), { count: 0, groups: [] });
    assert.deepStrictEqual(
      value(parseIommuGroups('group\t12\tidentity\t0\t0000:18:00.0\ngroup\t13\tDMA-FQ\t1\t0000:19:00.0\t0000:19:00.1\ngroup\t14\t\t0\n')),
      {
        count: 3,
        groups: [
          { id: 12, type: 'identity', vfio: false, devices: ['0000:18:00.0'] },
          { id: 13, type: 'DMA-FQ', vfio: true, devices: ['0000:19:00.0', '0000:19:00.1'] },
          { id: 14, type: null, vfio: false, devices: [] },
        ],
      },
    );
    failsAt(parseIommuGroups('ls: cannot access\n'), 1);
    failsAt(parseIommuGroups('group\t12\tidentity\t0\ngroup 13 DMA 0\n'), 2);
  });
});
