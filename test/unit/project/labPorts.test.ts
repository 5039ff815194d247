// The lab's loopback hosts get ports that no outgoing connection can take first: below the kernel's
// ephemeral range (a port from that range, bound and released, was once taken by another connection
// before sshd bound it, and CI failed with "Address already in use"), each one free and never given twice.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { freePort } from '../../lab/ports';

const ephemeralLow = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('lab ports', () => {
  it('are below the ephemeral range, distinct, and free to listen on', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    assert.equal(new Set(ports).size, ports.length, 'no port given twice');
    for (const port of ports) assert.ok(port >= 1024 && port < ephemeralLow, `${port} below ${ephemeralLow}`);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});
