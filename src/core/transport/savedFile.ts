// Reading one file of a saved folder (`--from DIR`, the demo's recordings) as hostile input: the folder may
// come from anyone, so a name that is a symbolic link (`topo.txt → /dev/zero`, `os-release.txt → ~/.ssh/id_ed25519`),
// a FIFO or a device is refused with the reason, and a regular file is read only up to the cap + 1 byte (the
// extra byte tells the report the output was cut). How: core/regularFile.ts.
import { t } from '../l10n';
import { NotRegularFileError, readRegularFile } from '../regularFile';

/** At most `maxBytes + 1` bytes of `file` when it is a regular file; undefined when there is none. Rejects with why otherwise. */
export async function readSavedFile(file: string, maxBytes: number): Promise<Buffer | undefined> {
  try {
    return (await readRegularFile(file, { maxBytes }))?.data;
  } catch (e) {
    if (!(e instanceof NotRegularFileError)) throw e;
    throw new Error(
      e.kind === 'link'
        ? t('{0} is a symbolic link: a saved folder is read from regular files only, so it was not read', file)
        : t(
            '{0} is not a regular file (a FIFO, a device or a folder): a saved folder is read from regular files only, so it was not read',
            file,
          ),
    );
  }
}
