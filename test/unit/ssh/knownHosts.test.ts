// known_hosts checks against keys and files made by the real ssh-keygen, which also serves as
// the oracle for hashed entries (`ssh-keygen -H` to hash, `ssh-keygen -F` to look up).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  checkHostKey,
  DEFAULT_HOST_KEY_ALGORITHMS,
  knownHostsLine,
  knownHostsName,
  orderHostKeyAlgorithms,
  parseKnownHosts,
} from '../../../src/core/ssh/knownHosts';
import { sha256Fingerprint } from '../../../src/core/ssh/fingerprint';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-kh-'));

function newKey(name: string, type = 'ed25519'): { line: string; blob: Buffer; fingerprint: string } {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', name, '-f', file]);
  const line = fs.readFileSync(`${file}.pub`, 'utf8').trim();
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`], { encoding: 'utf8' }).split(' ')[1];
  return { line, blob: Buffer.from(line.split(' ')[1], 'base64'), fingerprint };
}

const a = newKey('a');
const b = newKey('b');
const c = newKey('c', 'ecdsa');
const pub = (k: { line: string }) => k.line.split(' ').slice(0, 2).join(' ');

after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('known_hosts', () => {
  it('computes the fingerprint ssh-keygen -l prints', () => {
    assert.equal(sha256Fingerprint(a.blob), a.fingerprint);
  });

  it('finds a plain entry, and [host]:port entries only on that port', () => {
    const entries = parseKnownHosts(`gpu01,10.0.0.1 ${pub(a)}\n[gpu02]:2222 ${pub(b)}\n`, 'kh');
    assert.equal(checkHostKey(entries, knownHostsName('gpu01', 22), a.blob).status, 'known');
    assert.equal(checkHostKey(entries, knownHostsName('10.0.0.1', 22), a.blob).status, 'known');
    assert.equal(checkHostKey(entries, knownHostsName('gpu02', 2222), b.blob).status, 'known');
    assert.equal(checkHostKey(entries, knownHostsName('gpu02', 22), b.blob).status, 'unknown');
  });

  it('honours wildcards and negation in host patterns', () => {
    const entries = parseKnownHosts(`gpu*,!gpu13 ${pub(a)}\n`, 'kh');
    assert.equal(checkHostKey(entries, 'gpu07', a.blob).status, 'known');
    assert.equal(checkHostKey(entries, 'gpu13', a.blob).status, 'unknown');
    assert.equal(checkHostKey(entries, 'login', a.blob).status, 'unknown');
  });

  it('matches entries hashed by ssh-keygen -H', () => {
    const file = path.join(dir, 'hashed');
    fs.writeFileSync(file, `gpu01 ${pub(a)}\n[gpu02]:2200 ${pub(b)}\n`);
    execFileSync('ssh-keygen', ['-q', '-H', '-f', file]);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /^\|1\|/);
    const entries = parseKnownHosts(text, file);
    assert.equal(checkHostKey(entries, 'gpu01', a.blob).status, 'known');
    assert.equal(checkHostKey(entries, '[gpu02]:2200', b.blob).status, 'known');
    assert.equal(checkHostKey(entries, 'gpu03', a.blob).status, 'unknown');
  });

  it('reports a changed key with both fingerprints and the known line', () => {
    const entries = parseKnownHosts(`# comment\ngpu01 ${pub(a)}\n`, '/home/u/.ssh/known_hosts');
    const verdict = checkHostKey(entries, 'gpu01', b.blob);
    assert.equal(verdict.status, 'changed');
    assert.ok(verdict.status === 'changed');
    assert.equal(verdict.fingerprint, b.fingerprint);
    assert.equal(verdict.known[0].fingerprint, a.fingerprint);
    assert.equal(verdict.known[0].entry.line, 2);
    assert.equal(verdict.known[0].entry.file, '/home/u/.ssh/known_hosts');
  });

  it('treats a key of another type as unknown, noting the known types', () => {
    const verdict = checkHostKey(parseKnownHosts(`gpu01 ${pub(c)}\n`, 'kh'), 'gpu01', a.blob);
    assert.equal(verdict.status, 'unknown');
    assert.ok(verdict.status === 'unknown' && verdict.otherTypes[0].keyType === 'ecdsa-sha2-nistp256');
  });

  it('rejects @revoked keys even where a plain entry also lists them', () => {
    const entries = parseKnownHosts(`gpu01 ${pub(a)}\n@revoked * ${pub(a)}\n`, 'kh');
    assert.equal(checkHostKey(entries, 'gpu01', a.blob).status, 'revoked');
  });

  it('treats a host known only through @cert-authority as unknown', () => {
    const entries = parseKnownHosts(`@cert-authority *.cluster ${pub(a)}\n`, 'kh');
    assert.equal(checkHostKey(entries, 'gpu01.cluster', a.blob).status, 'unknown');
  });

  it('skips malformed lines instead of failing the whole file', () => {
    const entries = parseKnownHosts(`garbage\n|1|notbase64 ssh-ed25519 AAAA\n@bogus x y z\ngpu01 ${pub(a)}\n`, 'kh');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].line, 4);
  });

  it('writes lines that ssh-keygen -F finds, plain and hashed', () => {
    const file = path.join(dir, 'written');
    fs.writeFileSync(file, `${knownHostsLine('[gpu05]:2201', a.blob, false)}\n${knownHostsLine('gpu06', b.blob, true)}\n`);
    const found = (host: string) => execFileSync('ssh-keygen', ['-F', host, '-f', file], { encoding: 'utf8' });
    assert.match(found('[gpu05]:2201'), /ssh-ed25519/);
    assert.match(found('gpu06'), /ssh-ed25519/);
  });

  it("orders host key algorithms as ssh's order_hostkeyalgs: the types known for the host first", () => {
    const r = newKey('r', 'rsa');
    const order = (text: string, name = 'gpu01') => orderHostKeyAlgorithms(parseKnownHosts(text, 'kh'), name);
    assert.deepEqual(order(''), DEFAULT_HOST_KEY_ALGORITHMS);
    assert.deepEqual(order(`gpu01 ${pub(c)}\n`).slice(0, 2), ['ecdsa-sha2-nistp256', 'ssh-ed25519']);
    assert.deepEqual(order(`gpu01 ${pub(r)}\ngpu01 ${pub(c)}\n`).slice(0, 4), [
      'ecdsa-sha2-nistp256',
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-ed25519',
    ]);
    // The first default type known: the list as it is (ssh uses HostKeyAlgorithms verbatim then).
    assert.deepEqual(order(`gpu01 ${pub(r)}\ngpu01 ${pub(a)}\n`), DEFAULT_HOST_KEY_ALGORITHMS);
    assert.deepEqual(
      order(`gpu02 ${pub(r)}\n@revoked gpu01 ${pub(r)}\n`),
      DEFAULT_HOST_KEY_ALGORITHMS,
      'other hosts and marked lines do not count',
    );
    assert.deepEqual(order(`[gpu01]:2222 ${pub(c)}\n`, '[gpu01]:2222')[0], 'ecdsa-sha2-nistp256');
  });
});
