// A hostile SSH server: a real SSH protocol peer (ssh2's Server, in the test process) whose host key
// the client knows, that answers the first authentication request with an SSH_MSG_DISCONNECT
// carrying text of its choosing (RFC 4253 §11.1: reason code, description, language tag). OpenSSH's
// sshd only ever sends its own fixed reasons, so no lab host can say this; a compromised or
// impostor server can. Tests use it to show that such text reaches the user as plain characters:
// never a link in a VS Code notification, never an escape sequence on a terminal.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Server } from 'ssh2';
import { writeEd25519Key } from './keys';

// ssh2 sends DISCONNECT only with an empty description; these internals build the packet as its
// own Protocol.disconnect() does, with a description added.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { sendPacket } = require('ssh2/lib/protocol/utils') as { sendPacket: (proto: unknown, packet: Buffer, bypass: boolean) => void };

const SSH_MSG_DISCONNECT = 1;
/** SSH_DISCONNECT_PROTOCOL_ERROR: ssh2's client reports the description of any reason but "by application". */
const PROTOCOL_ERROR = 2;

interface PacketWriter {
  allocStartKEX: number;
  alloc(length: number, force: boolean): Buffer;
  finalize(packet: Buffer, force: boolean): Buffer;
}

export interface HostileSsh {
  readonly port: number;
  /** known_hosts line for 127.0.0.1 on its port. */
  readonly knownHostsLine: string;
  /** An ssh_config block `Host <alias>` reaching it with a client key of its own, strict host-key checking. */
  sshConfig(alias: string, knownHostsPath: string): string;
  stop(): Promise<void>;
}

function sendDisconnect(protocol: { _packetRW: { write: PacketWriter } }, description: string): void {
  const desc = Buffer.from(description, 'utf8');
  const w = protocol._packetRW.write;
  let p = w.allocStartKEX;
  const packet = w.alloc(1 + 4 + 4 + desc.length + 4, true);
  packet[p] = SSH_MSG_DISCONNECT;
  packet.writeUInt32BE(PROTOCOL_ERROR, (p += 1));
  packet.writeUInt32BE(desc.length, (p += 4));
  desc.copy(packet, (p += 4));
  packet.writeUInt32BE(0, p + desc.length); // empty language tag
  sendPacket(protocol, w.finalize(packet, true), true);
}

/** Starts the server on 127.0.0.1 (a free port); `dir` receives its host key and a client key. */
export async function startHostileSsh(dir: string, disconnectText: string): Promise<HostileSsh> {
  fs.mkdirSync(dir, { recursive: true });
  const hostKeyFile = path.join(dir, 'hostile_host_ed25519');
  const hostKeyLine = writeEd25519Key(hostKeyFile, 'hostile-host');
  const clientKey = path.join(dir, 'hostile_client_ed25519');
  writeEd25519Key(clientKey, 'hostile-client');
  const sockets = new Set<net.Socket>();
  const server = new Server({ hostKeys: [fs.readFileSync(hostKeyFile)] }, (client) => {
    client.on('error', () => undefined); // the client goes away once it has the message
    client.once('authentication', () => {
      sendDisconnect((client as unknown as { _protocol: { _packetRW: { write: PacketWriter } } })._protocol, disconnectText);
      client.end();
    });
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });
  const [type, blob] = hostKeyLine.split(' ');
  return {
    port,
    knownHostsLine: `[127.0.0.1]:${port} ${type} ${blob}`,
    sshConfig: (alias, knownHostsPath) =>
      [
        `Host ${alias}`,
        '  HostName 127.0.0.1',
        `  Port ${port}`,
        '  User gdr',
        `  IdentityFile ${clientKey}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${knownHostsPath}`,
        '  StrictHostKeyChecking yes',
        '',
      ].join('\n'),
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
