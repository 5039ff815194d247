// ed25519 host keys in OpenSSH's own file format, made in-process: ssh-keygen per key was two
// process spawns per host, which adds up when dozens of hosts start at once. Client keys
// (one with a passphrase) still come from ssh-keygen.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';

const str = (b: Buffer | string) => {
  const body = typeof b === 'string' ? Buffer.from(b) : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
};

/** Writes an unencrypted ed25519 private key (openssh-key-v1) and its .pub; returns the .pub line. */
export function writeEd25519Key(file: string, comment: string): string {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d ?? '', 'base64url');
  const pub = Buffer.from(jwk.x ?? '', 'base64url');
  const blob = Buffer.concat([str('ssh-ed25519'), str(pub)]);
  const check = randomBytes(4);
  let priv = Buffer.concat([check, check, str('ssh-ed25519'), str(pub), str(Buffer.concat([seed, pub])), str(comment)]);
  const pad = (8 - (priv.length % 8)) % 8;
  priv = Buffer.concat([priv, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    str('none'),
    str('none'),
    str(''),
    Buffer.from([0, 0, 0, 1]),
    str(blob),
    str(priv),
  ]);
  const b64 = body.toString('base64').replace(/.{70}/g, '$&\n').replace(/\n$/, '');
  fs.writeFileSync(file, `-----BEGIN OPENSSH PRIVATE KEY-----\n${b64}\n-----END OPENSSH PRIVATE KEY-----\n`, { mode: 0o600 });
  const line = `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
  fs.writeFileSync(file + '.pub', line + '\n');
  return line;
}
