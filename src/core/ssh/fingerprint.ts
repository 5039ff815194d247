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
