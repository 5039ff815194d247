// The files inside a .vsix (a zip) with their sizes, read from the zip's central directory, so the
// bench reports what ships without unpacking it or needing `unzip`.
import * as fs from 'node:fs';

export interface ZipEntry {
  readonly name: string;
  readonly bytes: number;
  readonly compressedBytes: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const ENTRY_SIGNATURE = 0x02014b50;

export function zipEntries(file: string): ZipEntry[] {
  const zip = fs.readFileSync(file);
  // The end-of-central-directory record sits in the last 22 bytes plus at most a 64 KiB comment.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip file (no end of central directory)`);
  const count = zip.readUInt16LE(eocd + 10);
  const entries: ZipEntry[] = [];
  let at = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== ENTRY_SIGNATURE) throw new Error(`${file}: broken central directory at byte ${at}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    entries.push({ name, compressedBytes: zip.readUInt32LE(at + 20), bytes: zip.readUInt32LE(at + 24) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
