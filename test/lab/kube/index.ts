// The Kubernetes lab for tests: an API server speaking kubectl's protocols over a lab of simulated GPU
// hosts (apiServer.ts), and what a test needs around it (kubectl processes still alive, an isolated HOME
// for kubectl's discovery cache).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export { LAB_TOKEN, startKubeLab } from './apiServer';
export type { KubeLab, KubeRequest } from './apiServer';
export type { KubeClusterSpec, KubeNodeSpec } from './state';

/** PIDs of kubectl processes whose command line names `marker` (a kubeconfig path): none may outlive a cancel. */
export function kubectlProcesses(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => /\bkubectl\b/.test(l) && l.includes(marker))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

/** The environment for a CLI run against a kube lab: its own HOME (kubectl's cache), the lab's kubeconfig. */
export function kubeEnv(dir: string, kubeconfig: string): NodeJS.ProcessEnv {
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { recursive: true });
  return { HOME: home, KUBECONFIG: kubeconfig };
}

/** Verbs that change the cluster, by HTTP method: diagnosing must send none. */
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
