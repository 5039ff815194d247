// The remote scripts, run for real with the local /bin/sh against a temporary root (their /etc paths
// rewritten, the only change): the persist script is idempotent, atomic and writes exactly the
// content the plan's diff shows; the read-state script's output is read back byte for byte.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parsePersistState } from '../../../src/core/fixes';
import { contentAfter } from '../../../src/core/fixes/planChecks';
import { CONF_HEADER, READ_STATE_SCRIPT, checkMarker, loadScript, persistScript, privilegedCommand } from '../../../src/core/fixes/scripts';
import { ETC_MODULES_TEXT } from './hosts';

let root: string;

function run(script: string): { status: number | null; stdout: string; stderr: string } {
  const local = script.split('/etc/').join(`${root}/etc/`);
  const r = spawnSync('/bin/sh', ['-c', local], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const etc = (rel: string) => path.join(root, 'etc', rel);
const leftovers = (dir: string) => fs.readdirSync(dir).filter((f) => f.includes('gdr-doctor'));

describe('fix scripts, run by a real sh', () => {
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-fix-scripts-'));
    fs.mkdirSync(etc('modules-load.d'), { recursive: true });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('writes a new modules-load.d file once, as the plan shows it, and never twice', () => {
    const script = persistScript('nvidia_peermem', 'modules-load.d');
    const first = run(script);
    assert.equal(first.status, 0, first.stderr);
    const conf = etc('modules-load.d/nvidia-peermem.conf');
    assert.equal(fs.readFileSync(conf, 'utf8'), contentAfter(null, 'nvidia_peermem', 'modules-load.d', CONF_HEADER));
    assert.equal(fs.statSync(conf).mode & 0o777, 0o644);
    const second = run(script);
    assert.equal(second.status, 0);
    assert.match(second.stdout, /already names nvidia-peermem: not changed/);
    assert.equal(fs.readFileSync(conf, 'utf8'), `${CONF_HEADER}\nnvidia-peermem\n`);
    assert.deepEqual(leftovers(etc('modules-load.d')), []);
  });

  it('appends to /etc/modules exactly as contentAfter says, adding a missing final newline', () => {
    for (const before of [ETC_MODULES_TEXT, 'lp\nrtc', '']) {
      fs.writeFileSync(etc('modules'), before);
      const r = run(persistScript('nvidia_peermem', 'etc-modules'));
      assert.equal(r.status, 0, r.stderr);
      assert.equal(fs.readFileSync(etc('modules'), 'utf8'), contentAfter(before, 'nvidia_peermem', 'etc-modules', CONF_HEADER));
    }
    assert.deepEqual(leftovers(etc('')), []);
  });

  it('treats nvidia_peermem, indented or with parameters, as already there; a comment is not', () => {
    for (const line of ['nvidia_peermem', '  nvidia-peermem', 'nvidia-peermem foo=1']) {
      fs.writeFileSync(etc('modules'), `lp\n${line}\n`);
      assert.match(run(persistScript('nvidia_peermem', 'etc-modules')).stdout, /not changed/);
      assert.equal(fs.readFileSync(etc('modules'), 'utf8'), `lp\n${line}\n`);
    }
    fs.writeFileSync(etc('modules'), '# nvidia-peermem\n');
    run(persistScript('nvidia_peermem', 'etc-modules'));
    assert.equal(fs.readFileSync(etc('modules'), 'utf8'), '# nvidia-peermem\nnvidia-peermem\n');
  });

  it('does not replace a symlink (nor follow it)', () => {
    fs.writeFileSync(etc('real'), 'lp\n');
    fs.symlinkSync('real', etc('modules'));
    const link = run(persistScript('nvidia_peermem', 'etc-modules'));
    assert.equal(link.status, 1);
    assert.match(link.stderr, /is not a regular file: not changed/);
    assert.equal(fs.readFileSync(etc('real'), 'utf8'), 'lp\n');
  });

  it('writes nothing but its temp file before the one rename, so an interruption leaves the old file', () => {
    for (const target of ['etc-modules', 'modules-load.d'] as const) {
      const lines = persistScript('nvidia_peermem', target).split('\n');
      const rename = lines.findIndex((l) => l.startsWith('mv -f -- "$t" "$f"'));
      assert.ok(rename > 0);
      const writes = lines.slice(0, rename).flatMap((l) => [...l.matchAll(/>>?\s*("[^"]*"|[^\s;]+)/g)].map((m) => m[1]));
      assert.deepEqual([...new Set(writes)].sort(), ['"$t"', '&2'].sort(), target);
      assert.ok(
        lines.slice(rename + 1).every((l) => !/>\s*"\$f"|\bmv\b|\bcp\b/.test(l)),
        'nothing writes the target after the rename',
      );
    }
  });

  it('reads the boot module files back byte for byte', () => {
    fs.writeFileSync(etc('modules'), 'lp\nécran\n\n');
    fs.writeFileSync(etc('modules-load.d/nvidia-peermem.conf'), 'nvidia-peermem');
    fs.symlinkSync('/nowhere', etc('modules-load.d/nv_peer_mem.conf'));
    const r = spawnSync('/bin/sh', ['-c', READ_STATE_SCRIPT.split('/etc/').join(`${root}/etc/`)]);
    assert.equal(r.status, 0, r.stderr.toString());
    const state = parsePersistState(r.stdout);
    assert.ok(state.ok, state.ok ? '' : state.error.message);
    assert.equal(state.value.modulesLoadDir, 'directory');
    assert.deepEqual(state.value.files[`${root}/etc/modules`], { kind: 'regular', content: 'lp\nécran\n\n' });
    assert.deepEqual(state.value.files[`${root}/etc/modules-load.d/nvidia-peermem.conf`], { kind: 'regular', content: 'nvidia-peermem' });
    assert.deepEqual(state.value.files[`${root}/etc/modules-load.d/nv_peer_mem.conf`], { kind: 'symlink' });
    fs.rmSync(etc('modules-load.d'), { recursive: true });
    const gone = parsePersistState(spawnSync('/bin/sh', ['-c', READ_STATE_SCRIPT.split('/etc/').join(`${root}/etc/`)]).stdout);
    assert.ok(gone.ok);
    assert.equal(gone.value.modulesLoadDir, 'absent');
  });
});

describe('fix command lines', () => {
  it('are built from constants: no single quote inside any script', () => {
    for (const s of [
      loadScript('nvidia_peermem'),
      loadScript('nv_peer_mem'),
      persistScript('nvidia_peermem', 'etc-modules'),
      persistScript('nv_peer_mem', 'modules-load.d'),
      READ_STATE_SCRIPT,
    ]) {
      assert.ok(!s.includes("'"), s);
    }
  });

  it('wrap a script for each privilege; the sudo marker must be plain', () => {
    const script = loadScript('nvidia_peermem');
    assert.equal(privilegedCommand(script, 'root', 'unused-marker'), `/bin/sh -c '${script}'`);
    assert.equal(privilegedCommand(script, 'sudo', 'unused-marker'), `LC_ALL=C sudo -n /bin/sh -c '${script}'`);
    assert.equal(
      privilegedCommand(script, 'sudo-password', 'gdr-doctor-sudo-abc123'),
      `LC_ALL=C sudo -S -p 'gdr-doctor-sudo-abc123' /bin/sh -c '${script}'`,
    );
    assert.throws(() => checkMarker("x'; rm -rf /; '"), /marker/);
    assert.throws(() => checkMarker('short'), /marker/);
  });
});
