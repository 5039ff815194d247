import * as assert from 'assert';
import { parseOsRelease } from '../../../src/core/parsers/osRelease';
import { checksFor, readFixture } from '../../support/parsing';
import { summarizeOsRelease } from '../../../src/cli/summary/osRelease';

const fixture = (name: string): string => readFixture('os-release', name);
const { parsed, failure: failsAt } = checksFor(parseOsRelease);

describe('parseOsRelease', () => {
  it('reads Ubuntu 22.04 with quoted and unquoted values', () => {
    const v = parsed(fixture('ubuntu-22.04.5.txt'));
    assert.strictEqual(v.id, 'ubuntu');
    assert.deepStrictEqual(v.idLike, ['debian']);
    assert.strictEqual(v.versionId, '22.04');
    assert.strictEqual(v.prettyName, 'Ubuntu 22.04.5 LTS');
    assert.strictEqual(v.fields.VERSION_CODENAME, 'jammy');
    assert.strictEqual(v.fields.VERSION, '22.04.5 LTS (Jammy Jellyfish)');
    assert.strictEqual(Object.keys(v.fields).length, 12);
  });

  it('reads RHEL 8.7 with its blank line and an unquoted version', () => {
    const v = parsed(fixture('rhel-8.7-leonardo-hpc.txt'));
    assert.strictEqual(v.id, 'rhel');
    assert.deepStrictEqual(v.idLike, ['fedora']);
    assert.strictEqual(v.versionId, '8.7');
    assert.strictEqual(v.fields.REDHAT_BUGZILLA_PRODUCT_VERSION, '8.7');
    assert.strictEqual(v.fields.CPE_NAME, 'cpe:/o:redhat:enterprise_linux:8::baseos');
    assert.strictEqual(Object.keys(v.fields).length, 16);
  });

  it('reads Rocky 9.7 with several ID_LIKE entries', () => {
    const v = parsed(fixture('rocky-9.7.txt'));
    assert.strictEqual(v.id, 'rocky');
    assert.deepStrictEqual(v.idLike, ['rhel', 'centos', 'fedora']);
    assert.strictEqual(v.versionId, '9.7');
    assert.strictEqual(v.prettyName, 'Rocky Linux 9.7 (Blue Onyx)');
    assert.strictEqual(v.fields.SUPPORT_END, '2032-05-31');
  });

  it('reads Debian 12 without ID_LIKE', () => {
    const v = parsed(fixture('debian-12-bookworm.txt'));
    assert.strictEqual(v.id, 'debian');
    assert.deepStrictEqual(v.idLike, []);
    assert.strictEqual(v.versionId, '12');
    assert.strictEqual(v.prettyName, 'Debian GNU/Linux 12 (bookworm)');
  });

  it('reads a rolling release without VERSION_ID', () => {
    const v = parsed(fixture('endeavouros-rolling-no-version-id.txt'));
    assert.strictEqual(v.id, 'endeavouros');
    assert.strictEqual(v.versionId, null);
    assert.strictEqual(v.fields.BUILD_ID, 'rolling');
    assert.strictEqual(v.fields.ANSI_COLOR, '38;2;23;147;209');
  });

  it('follows os-release(5) quoting: single quotes, backslash escapes, comments, defaults', () => {
    const v = parsed(
      [
        '# comment',
        "VERSION_ID='9.4'",
        'PRETTY_NAME="Rocky \\"Blue\\" \\$HOME \\n"',
        'NAME=Plain\\ Linux',
        'NAME=Later',
        'constructor=x',
        '',
      ].join('\n'),
    );
    assert.strictEqual(v.versionId, '9.4');
    assert.strictEqual(v.prettyName, 'Rocky "Blue" $HOME \\n');
    assert.strictEqual(v.fields.NAME, 'Later');
    assert.strictEqual(v.fields.constructor, 'x');
    assert.strictEqual(v.id, 'linux');
    assert.strictEqual(parsed('ID=x\n').prettyName, 'Linux');
  });

  describe('malformed input', () => {
    const rocky = fixture('rocky-9.7.txt');

    it('reports empty input and comment-only input', () => {
      failsAt('', 1, /no KEY=value line/);
      failsAt('# just a comment\n', 1, /no KEY=value line/);
    });

    it('reports a copy cut inside a quoted value', () => {
      const cut = rocky.slice(0, rocky.indexOf('rockylinux.org/"'));
      failsAt(cut, 11, /unclosed double quote/);
    });

    it('reports an unclosed single quote', () => {
      failsAt("ID=x\nNAME='Rocky\n", 2, /unclosed single quote/);
    });

    it('reports spaces outside quotes', () => {
      failsAt('ID=ubuntu\nNAME=Ubuntu Linux\n', 2, /whitespace outside quotes/);
    });

    it('reports garbage text', () => {
      failsAt('ID=ubuntu\nthis is not os-release\n', 2, /expected KEY=value/);
    });

    it('reports the wrong command output: lsmod', () => {
      failsAt('Module                  Size  Used by\n', 1, /expected KEY=value.*Module/);
    });
  });
});

describe('summarizeOsRelease', () => {
  it('shows name, id, version and ancestry', () => {
    assert.strictEqual(
      summarizeOsRelease(parsed(fixture('rocky-9.7.txt'))),
      'OS: Rocky Linux 9.7 (Blue Onyx)\n  id rocky, version 9.7, like rhel centos fedora',
    );
    assert.match(summarizeOsRelease(parsed(fixture('endeavouros-rolling-no-version-id.txt'))), /version \(none: rolling release\)/);
  });
});
