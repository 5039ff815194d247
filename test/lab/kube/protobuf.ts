// kubectl debug posts its pod as Kubernetes protobuf (`k8s\0` + runtime.Unknown{typeMeta, raw}), the
// typed client's default for core types; it accepts JSON back. This reads the few fields the lab needs
// from the wire format (field numbers of k8s.io/api core/v1 generated.proto): ObjectMeta name 1,
// namespace 3, labels 11; PodSpec containers 2, nodeName 10, hostNetwork 11, hostPID 12, hostIPC 13;
// Container name 1, image 2, command 3, args 4, stdin 16, stdinOnce 17, tty 18.
import type { Json } from './objects';

type Field = { no: number; wire: number; value: Buffer | number };

function varint(buf: Buffer, at: number): [number, number] {
  let n = 0;
  let mul = 1;
  for (;;) {
    const b = buf[at++];
    n += (b & 0x7f) * mul;
    if (b < 0x80) return [n, at];
    mul *= 128;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = varint(buf, at);
    at = next;
    const no = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const [v, n2] = varint(buf, at);
      out.push({ no, wire, value: v });
      at = n2;
    } else if (wire === 2) {
      const [len, n2] = varint(buf, at);
      out.push({ no, wire, value: buf.subarray(n2, n2 + len) });
      at = n2 + len;
    } else if (wire === 5) at += 4;
    else if (wire === 1) at += 8;
    else throw new Error(`protobuf wire type ${wire} not read`);
  }
  return out;
}

const bytesOf = (fs: Field[], no: number): Buffer[] => fs.filter((f) => f.no === no && f.wire === 2).map((f) => f.value as Buffer);
const str = (fs: Field[], no: number): string | undefined => bytesOf(fs, no)[0]?.toString('utf8');
const strs = (fs: Field[], no: number): string[] => bytesOf(fs, no).map((b) => b.toString('utf8'));
const bool = (fs: Field[], no: number): boolean => fs.some((f) => f.no === no && f.wire === 0 && f.value === 1);

export function isProtobuf(body: Buffer): boolean {
  return body.subarray(0, 4).equals(Buffer.from('k8s\0', 'latin1'));
}

/** The pod of a protobuf POST, as JSON with the fields the lab uses. */
export function podFromProtobuf(body: Buffer): Json {
  const unknown = fields(body.subarray(4));
  const pod = fields(bytesOf(unknown, 2)[0] ?? Buffer.alloc(0));
  const meta = fields(bytesOf(pod, 1)[0] ?? Buffer.alloc(0));
  const spec = fields(bytesOf(pod, 2)[0] ?? Buffer.alloc(0));
  const labels: Record<string, string> = {};
  for (const entry of bytesOf(meta, 11).map(fields)) labels[str(entry, 1) ?? ''] = str(entry, 2) ?? '';
  const containers = bytesOf(spec, 2)
    .map(fields)
    .map((c) => ({
      name: str(c, 1),
      image: str(c, 2),
      command: strs(c, 3),
      args: strs(c, 4),
      stdin: bool(c, 16),
      stdinOnce: bool(c, 17),
      tty: bool(c, 18),
    }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: str(meta, 1), ...(str(meta, 3) ? { namespace: str(meta, 3) } : {}), labels },
    spec: { containers, nodeName: str(spec, 10), hostNetwork: bool(spec, 11), hostPID: bool(spec, 12), hostIPC: bool(spec, 13) },
  };
}
