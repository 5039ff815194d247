// A group's quick fix is shown as one plan: hosts whose plans send the same commands share one block
// ("on N hosts: <folded list>"); a host whose plan differs, or that needs nothing, gets its own.
import * as assert from 'node:assert/strict';
import { planFix } from '../../../src/core/fixes';
import { groupPlanText } from '../../../src/vscode/fleet/groupPlan';
import { LOADED_AND_PERSISTED, NEEDS_PEERMEM, report, SUDO } from '../fixes/hosts';

const MARKER = 'gdr-doctor-sudo-0123456789abcdef01234567';

async function plan(host: string, files: Parameters<typeof report>[0]) {
  return {
    host: { label: host },
    plan: planFix({ fixId: 'load-peermem', host, user: 'gdr', report: await report(files), sudoMarker: MARKER }),
  };
}

describe('group fix plan text', () => {
  it('shows identical plans once, with the folded list of their hosts', async () => {
    const text = groupPlanText('load-peermem', [
      await plan('gpu01', NEEDS_PEERMEM),
      await plan('gpu02', NEEDS_PEERMEM),
      await plan('gpu03', NEEDS_PEERMEM),
    ]);
    assert.equal(text.match(/\$ LC_ALL=C sudo -n /g)?.length, 1, text);
    assert.match(text, /^gpu\[01-03\]: load-peermem \(nvidia_peermem\): plan/);
    assert.match(text, /on 3 hosts: gpu\[01-03\]$/);
  });

  it('gives a host whose plan differs (sudo asks a password there) a block of its own, ready plans first', async () => {
    const text = groupPlanText('load-peermem', [
      await plan('gpu01', LOADED_AND_PERSISTED),
      await plan('gpu02', NEEDS_PEERMEM),
      await plan('gpu03', { ...NEEDS_PEERMEM, 'sudo-n': SUDO.password }),
      { host: { label: 'gpu04' }, error: 'gpu04: connection refused' },
    ]);
    const blocks = text.split('\n\n');
    assert.equal(blocks.length, 4, text);
    assert.match(blocks[0], /sudo -n /);
    assert.match(blocks[0], /on 1 host: gpu02$/);
    assert.match(blocks[1], /sudo -S /);
    assert.match(blocks[1], /on 1 host: gpu03$/);
    assert.match(blocks[2], /^gpu01: load-peermem.*: nothing to do/);
    assert.match(blocks[3], /no plan \(not changed\):\n {2}gpu04: gpu04: connection refused/);
  });
});
