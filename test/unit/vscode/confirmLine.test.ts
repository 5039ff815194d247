// A quick fix is confirmed in one line of what will run, on the demo's real plans (made by the same plan
// code as a real host's): the exact module load a person would type, the file it writes, "simulated" once.
import * as assert from 'node:assert/strict';
import { DemoHost } from '../../../src/core/transport';
import { demoFixSession, prepareDemoFix } from '../../../src/core/fixes/demo/demoFix';
import { newSudoMarker } from '../../../src/core/fixes';
import { confirmLine } from '../../../src/vscode/fixes/confirmLine';
import { DEMO_DIR } from '../../support/paths';

const plan = (fixId: 'load-peermem' | 'persist-peermem') => prepareDemoFix(demoFixSession(new DemoHost(DEMO_DIR)), fixId, newSudoMarker());

describe('a quick fix confirmed in one line', () => {
  it('load-peermem: the command a person would type, where, and "simulated" once on the demo', async () => {
    const p = await plan('load-peermem');
    const line = confirmLine(p);
    assert.equal(line, 'Run `sudo modprobe nvidia_peermem` on demo-hgx-h100 (replayed)? Simulated: nothing runs on any machine.');
    assert.ok(!line.includes('\n'));
    assert.equal(line.match(/simulated/gi)?.length, 1);
    // A real host's plan says the same without the demo's words; as root, without sudo.
    assert.equal(confirmLine({ ...p, simulated: false, host: 'gpu01' }), 'Run `sudo modprobe nvidia_peermem` on gpu01?');
    assert.equal(confirmLine({ ...p, simulated: false, host: 'gpu01', privilege: 'root' }), 'Run `modprobe nvidia_peermem` on gpu01?');
  });

  it('persist-peermem: the load, then the file it adds the module to', async () => {
    const line = confirmLine({ ...(await plan('persist-peermem')), simulated: false, host: 'gpu01' });
    assert.equal(
      line,
      'On gpu01: run `sudo modprobe nvidia_peermem`, then add the line "nvidia-peermem" to /etc/modules-load.d/nvidia-peermem.conf?',
    );
  });
});
