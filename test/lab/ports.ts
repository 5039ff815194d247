import * as fs from 'node:fs';
import * as net from 'node:net';
import { labShift } from './sideBySide';

// Loopback hosts listen on ports below the kernel's ephemeral range: a port taken from that range
// (bind to 0, close, let sshd bind it) could meanwhile become the local end of any outgoing
// connection on the machine, and sshd then fails with "Address already in use" (it did, in CI).
// Each GDR_LAB_SHIFT gets its own block, and one process never hands out a port twice.
const givenPorts = new Set<number>();
const portBlock = 1500;

function ephemeralLow(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const top = ephemeralLow() - 1;
  const first = Math.max(1024, top - portBlock * (labShift() + 1) + 1);
  const start = Math.floor(Math.random() * portBlock);
  for (let i = 0; i < portBlock; i++) {
    const port = first + ((start + i) % portBlock);
    if (givenPorts.has(port) || !(await canListen(port))) continue;
    givenPorts.add(port);
    return port;
  }
  throw new Error(`no free loopback port in ${first}-${first + portBlock - 1}`);
}
