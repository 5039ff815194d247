// OpenSSH key fingerprints and key-blob helpers.
import { createHash } from 'node:crypto';

/** `SHA256:` + unpadded base64 of the SHA-256 of the key blob, as `ssh-keygen -l` prints it. */
export function sha256Fingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named at the start of an SSH public key blob (`ssh-ed25519`, `ecdsa-sha2-nistp256`, …). */
export function keyTypeOfBlob(blob: Buffer): string | null {
  if (blob.length < 4) return null;
  const len = blob.readUInt32BE(0);
  if (len === 0 || len > 64 || 4 + len > blob.length) return null;
  return blob.subarray(4, 4 + len).toString('latin1');
}

// sshkey_type() names, which OpenSSH shows in "<TYPE> key fingerprint is …".
const KEY_TYPE_NAMES: Readonly<Record<string, string>> = {
  'ssh-ed25519': 'ED25519',
  'ssh-rsa': 'RSA',
  'ssh-dss': 'DSA',
  'ecdsa-sha2-nistp256': 'ECDSA',
  'ecdsa-sha2-nistp384': 'ECDSA',
  'ecdsa-sha2-nistp521': 'ECDSA',
  'sk-ssh-ed25519@openssh.com': 'ED25519-SK',
  'sk-ecdsa-sha2-nistp256@openssh.com': 'ECDSA-SK',
};

/** OpenSSH's short name for a key type (`ssh-ed25519` → `ED25519`); an unknown type is shown as it is. */
export function openSshKeyTypeName(keyType: string): string {
  const cert = /^(.*)-cert-v01@openssh\.com$/.exec(keyType);
  if (cert) return `${openSshKeyTypeName(cert[1].startsWith('sk-') ? `${cert[1]}@openssh.com` : cert[1])}-CERT`;
  return KEY_TYPE_NAMES[keyType] ?? keyType;
}
