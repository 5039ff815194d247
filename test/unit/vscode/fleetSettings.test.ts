// gdrDoctor.fleets is user-edited JSON: what survives into the extension, and what is dropped and why.
import * as assert from 'node:assert/strict';
import { fleetToSetting, parseFleets, withFleetAdded, withFleetRemoved } from '../../../src/vscode/fleet/fleetSettings';

describe('gdrDoctor.fleets setting', () => {
  it("keeps direct and login-node fleets, trimming text; without a tool, the login node's is detected later", () => {
    const { fleets, problems } = parseFleets([
      { name: ' gpu ', hosts: 'gpu[01-64] ' },
      { name: 'cluster', hosts: 'node[1-4]', via: 'login1', partition: 'a100' },
      { name: 'pd', hosts: 'n[1-2]', via: 'login2', with: 'pdsh' },
    ]);
    assert.deepEqual(problems, []);
    assert.deepEqual(fleets, [
      { name: 'gpu', hosts: 'gpu[01-64]' },
      { name: 'cluster', hosts: 'node[1-4]', via: 'login1', partition: 'a100' },
      { name: 'pd', hosts: 'n[1-2]', via: 'login2', with: 'pdsh' },
    ]);
  });

  it('drops entries without a name or hosts, and a second fleet of the same name, saying why', () => {
    const { fleets, problems } = parseFleets([
      { name: 'a', hosts: 'x' },
      { name: '', hosts: 'y' },
      'gpu[1-2]',
      { name: 'a', hosts: 'z' },
      { hosts: 'q' },
    ]);
    assert.deepEqual(
      fleets.map((f) => f.hosts),
      ['x'],
    );
    assert.equal(problems.length, 4);
    assert.match(problems[2], /a fleet named a comes earlier/);
  });

  it('names an unknown tool and leaves the choice to detection; without a login node the tool is not kept', () => {
    const { fleets, problems } = parseFleets([
      { name: 'a', hosts: 'x', via: 'l', with: 'ansible' },
      { name: 'b', hosts: 'y', with: 'pdsh' },
    ]);
    assert.deepEqual(fleets, [
      { name: 'a', hosts: 'x', via: 'l' },
      { name: 'b', hosts: 'y' },
    ]);
    assert.match(problems[0], /"with" must be slurm, pdsh or clush; the login node's tools are detected instead/);
  });

  it('is not an array: no fleet', () => {
    assert.deepEqual(parseFleets({ name: 'a', hosts: 'x' }).fleets, []);
    assert.deepEqual(parseFleets(undefined).fleets, []);
  });

  it('writes back what it read, without empty keys', () => {
    const raw = [
      { name: 'cluster', hosts: 'node[1-4]', via: 'login1', with: 'clush' },
      { name: 'gpu', hosts: 'gpu[1-2]' },
    ];
    assert.deepEqual(parseFleets(raw).fleets.map(fleetToSetting), raw);
  });

  it('adding a fleet keeps every entry as written, also ones it cannot read', () => {
    const raw = [{ name: 'gpu', hosts: 'gpu[1-2]', note: 'kept' }, { hosts: 'no-name[1-3]' }, 'typo'];
    const added = withFleetAdded(raw, { name: 'new', hosts: 'n[1-2]', via: 'login', with: 'pdsh' });
    assert.deepEqual(added, [...raw, { name: 'new', hosts: 'n[1-2]', via: 'login', with: 'pdsh' }]);
    assert.deepEqual(
      parseFleets(added).fleets.map((f) => f.name),
      ['gpu', 'new'],
    );
    assert.deepEqual(withFleetAdded(undefined, { name: 'a', hosts: 'x' }), [{ name: 'a', hosts: 'x' }]);
  });

  it('removing a fleet drops the entries of that name only', () => {
    const raw = [
      { name: 'gpu', hosts: 'gpu[1-2]' },
      { hosts: 'no-name' },
      'typo',
      { name: ' gpu ', hosts: 'dup' },
      { name: 'cpu', hosts: 'c1' },
    ];
    assert.deepEqual(withFleetRemoved(raw, 'gpu'), [{ hosts: 'no-name' }, 'typo', { name: 'cpu', hosts: 'c1' }]);
    assert.deepEqual(withFleetRemoved(raw, 'none'), raw);
  });
});
