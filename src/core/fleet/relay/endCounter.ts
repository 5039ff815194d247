// Counts the nodes whose stream has ended while a relay run is still going, so a run through a login
// node shows progress ("3/16 hosts") as a direct fan-out does. Each node's last stdout line is
// `<prefix>: <T> E <rc>` (loginScript.ts; prefix: pdsh's and clush's host, srun's task number); the
// random tag makes a probe's own output unable to count. Only a count: the streams are split once
// the run is over (demux.ts).

/** Returns the chunk consumer for exec's stdout; `onEnded` gets the number of nodes ended so far. */
export function nodeEndCounter(tag: string, onEnded: (count: number) => void): (chunk: Buffer) => void {
  const marker = `: ${tag} E `;
  const ended = new Set<string>();
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk.toString('latin1')).split('\n');
    partial = lines.pop() ?? '';
    const before = ended.size;
    for (const line of lines) {
      // indexOf, not startsWith: pdsh may glue a dying node's unfinished line in front (demux.ts).
      const at = line.indexOf(marker);
      if (at >= 0) ended.add(prefixOf(line.slice(0, at)));
    }
    if (ended.size > before) onEnded(ended.size);
  };
}

/** A key per node for the count: its prefix (on a glued line, with the other node's bytes in front). */
function prefixOf(head: string): string {
  const space = head.lastIndexOf(' ');
  return head.slice(space + 1).trim();
}
