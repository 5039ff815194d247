// The CLI's language: --lang zh-CN, else LC_ALL / LC_MESSAGES / LANG (zh_CN.UTF-8), else English.
// Finding ids, evidence and command lines stay as they are; --json is English whatever the locale.
import * as assert from 'node:assert/strict';
import { bundledLocale, chooseLocale, normalizeLocale, takeLangOption } from '../../../src/cli/lang';
import { runCli } from '../../support/cli';

/** No locale from the environment running the tests. */
const ENGLISH_ENV = { LC_ALL: '', LC_MESSAGES: '', LANG: 'C' };
const CHINESE_ENV = { LC_ALL: '', LC_MESSAGES: '', LANG: 'zh_CN.UTF-8' };

/** What the demo report shows that is not text of ours: ids, evidence, fix commands, the suggested variable. */
function untranslated(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => /^ {4}(ERROR|WARN |info ) [a-z-]+\.[a-z-]+:|^ {10}> |gdr-doctor fix <host>|^ {4}NCCL_IB_HCA=/.test(l))
    .map((l) => l.replace(/^( {4}(?:ERROR|WARN |info ) [a-z-]+\.[a-z-]+):.*/, '$1').replace(/^.*(gdr-doctor fix <host> \S+).*$/, '$1'));
}

describe('gdr-doctor --lang and the locale (built CLI)', () => {
  it('reads the locale as gettext does: --lang first, then LC_ALL, LC_MESSAGES, LANG; C and POSIX are English', () => {
    assert.equal(normalizeLocale('zh_CN.UTF-8'), 'zh-cn');
    assert.equal(normalizeLocale('zh-CN'), 'zh-cn');
    assert.equal(normalizeLocale('C.UTF-8'), undefined);
    assert.equal(chooseLocale(undefined, { LC_ALL: 'zh_CN.UTF-8', LANG: 'en_US.UTF-8' }), 'zh-cn');
    assert.equal(chooseLocale(undefined, { LC_ALL: '', LC_MESSAGES: 'zh_CN.utf8', LANG: 'en_US.UTF-8' }), 'zh-cn');
    assert.equal(chooseLocale('en', { LANG: 'zh_CN.UTF-8' }), 'en');
    assert.equal(bundledLocale('zh-cn'), 'zh-cn');
    assert.equal(bundledLocale('zh'), 'zh-cn');
    assert.equal(bundledLocale('en-us'), undefined);
    assert.equal(bundledLocale('fr-fr'), undefined);
    assert.deepEqual(takeLangOption(['diagnose', '--lang', 'zh-CN', '--demo']), { argv: ['diagnose', '--demo'], lang: 'zh-CN' });
    assert.deepEqual(takeLangOption(['--lang=zh-CN', 'parse', '--', '--lang']), { argv: ['parse', '--', '--lang'], lang: 'zh-CN' });
  });

  it('diagnose --demo --lang zh-CN: Chinese titles, explanations and headings; ids, evidence and commands unchanged', async function () {
    this.timeout(30_000);
    const en = await runCli(['diagnose', '--demo'], ENGLISH_ENV);
    const zh = await runCli(['diagnose', '--demo', '--lang', 'zh-CN'], ENGLISH_ENV);
    assert.equal(zh.status, 0, zh.stderr);
    assert.match(en.stdout, /^ {4}ERROR peermem\.not-loaded: nvidia_peermem is not loaded$/m);
    assert.match(zh.stdout, /^ {4}ERROR peermem\.not-loaded: nvidia_peermem 未加载$/m);
    assert.match(zh.stdout, /^ {4}WARN {2}peermem\.not-persistent: nvidia_peermem 不会在开机时加载$/m);
    assert.match(zh.stdout, /^ {2}发现：$/m);
    assert.match(zh.stdout, /— GDR 否$/m);
    assert.doesNotMatch(zh.stdout, /is not loaded|findings:|Check the cable/);
    assert.deepEqual(untranslated(zh.stdout), untranslated(en.stdout));
    assert.ok(
      untranslated(en.stdout).some((l) => l.includes('> lsmod: ')),
      en.stdout,
    );
  });

  it('LANG=zh_CN.UTF-8 speaks Chinese too, and --lang en overrides it', async function () {
    this.timeout(30_000);
    const zh = await runCli(['diagnose', '--demo'], CHINESE_ENV);
    assert.match(zh.stdout, /peermem\.not-loaded: nvidia_peermem 未加载$/m);
    const en = await runCli(['diagnose', '--demo', '--lang', 'en'], CHINESE_ENV);
    assert.match(en.stdout, /peermem\.not-loaded: nvidia_peermem is not loaded$/m);
    const help = await runCli(['--help'], CHINESE_ENV);
    assert.match(help.stdout, /^用法：gdr-doctor <command> \[options\]$/m);
    assert.match(help.stdout, /--lang LOCALE/);
  });

  it('--json is the same bytes in every locale (English text, same keys and ids)', async function () {
    this.timeout(30_000);
    const strip = (s: string) => s.replace(/"(collectedAt|durationMs)": [^,\n]+/g, '"$1": 0').replace(/"ms": \d+/g, '"ms": 0');
    const en = await runCli(['diagnose', '--demo', '--json'], ENGLISH_ENV);
    const zh = await runCli(['diagnose', '--demo', '--json', '--lang', 'zh-CN'], CHINESE_ENV);
    assert.equal(zh.status, 0, zh.stderr);
    assert.equal(strip(zh.stdout), strip(en.stdout));
    assert.match(en.stdout, /"title": "nvidia_peermem is not loaded"/);
  });

  it('is English by default (no locale, C, or a language without a bundle)', async function () {
    this.timeout(30_000);
    for (const env of [ENGLISH_ENV, { LC_ALL: '', LC_MESSAGES: '', LANG: 'fr_FR.UTF-8' }]) {
      const r = await runCli(['diagnose', '--demo'], env);
      assert.match(r.stdout, /^ {2}findings:$/m);
      assert.match(r.stdout, /peermem\.not-loaded: nvidia_peermem is not loaded$/m);
    }
  });

  it('--lang without a value is a usage error (exit 64)', async () => {
    const r = await runCli(['diagnose', '--lang'], ENGLISH_ENV);
    assert.equal(r.status, 64);
    assert.match(r.stderr, /--lang needs a value/);
  });

  it('a usage error lists the relay tools in Chinese too', async () => {
    const r = await runCli(['diagnose', 'gpu1', '--via', 'login', '--with', 'foo', '--lang', 'zh-CN'], ENGLISH_ENV);
    assert.equal(r.status, 64);
    assert.match(r.stderr, /slurm, pdsh 或 clush/);
  });
});
