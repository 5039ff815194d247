// Raw outputs are titled with the command as a person names it, never the probe's internal id.
import * as assert from 'node:assert/strict';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { commandTitle } from '../../../src/core/probe/commandTitle';

describe('commandTitle: a probe command as a person names it', () => {
  it('every command has a one-line title that is not its id', () => {
    for (const c of PROBE_COMMANDS) {
      const title = commandTitle(c);
      if (c.command !== c.id) assert.notEqual(title, c.id, c.id);
      assert.ok(!title.includes('\n') && title.length <= 60, `${c.id}: ${title}`);
    }
  });

  it('short commands as run; loops and scripts by what they read', () => {
    const byId = (id: string) => commandTitle(PROBE_COMMANDS.find((c) => c.id === id) ?? { id, command: '' });
    assert.equal(byId('topo'), 'nvidia-smi topo -m');
    assert.equal(byId('kallsyms-peer'), 'grep ib_register_peer_memory_client /proc/kallsyms');
    assert.equal(byId('sudo-n'), 'sudo -n true');
    assert.equal(byId('modules-load'), 'cat /etc/modules-load.d/*.conf');
    assert.equal(byId('pci-sysfs'), 'PCI devices in /sys/bus/pci');
    // A command unknown to this table (an older report) keeps a short line, else its id.
    assert.equal(commandTitle({ id: 'x', command: 'uptime' }), 'uptime');
    assert.equal(commandTitle({ id: 'x', command: 'a\nb' }), 'x');
  });
});
