// TLS for the lab API server: kubectl sends a bearer token only over HTTPS and checks the server's
// certificate against the kubeconfig's certificate-authority-data, so each lab makes its own CA and a
// server certificate for 127.0.0.1 with openssl, as `kubeadm init` makes a cluster's.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface LabCerts {
  readonly caPem: string;
  readonly keyPem: string;
  readonly certPem: string;
}

export function makeCerts(dir: string): LabCerts {
  fs.mkdirSync(dir, { recursive: true });
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=gdrlab-kube-ca',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=kube-apiserver', '-keyout', f('server.key'), '-out', f('server.csr'));
  fs.writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('san.ext'),
    '-out',
    f('server.crt'),
  );
  return {
    caPem: fs.readFileSync(f('ca.crt'), 'utf8'),
    keyPem: fs.readFileSync(f('server.key'), 'utf8'),
    certPem: fs.readFileSync(f('server.crt'), 'utf8'),
  };
}
