// A lab Kubernetes API server for tests, where no real one can run: HTTPS with its own CA, bearer
// tokens, discovery, get/list/watch of nodes, pods and the operators' two policies, pods/log, merge
// patches and deletes, pod creation (kubectl debug), exec and attach over WebSocket bridged into lab SSH
// hosts (execBridge.ts). kubectl 1.32 talks to it as to a real cluster. Every request is logged, so a
// test can hold the product to the verbs it promises (get/list only while diagnosing).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as path from 'node:path';
import { WebSocketServer } from 'ws';
import type { Lab } from '../lab';
import { makeCerts } from './certs';
import { coreV1, coreVersions, CUSTOM_GROUPS, groupList, groupResources, version } from './discovery';
import { bridge, EXEC_PROTOCOLS, sshSpawn } from './execBridge';
import { Json, nextResourceVersion } from './objects';
import { fieldSelector, labelSelector } from './selectors';
import { isProtobuf, podFromProtobuf } from './protobuf';
import { isDriverPod, KubeClusterSpec, KubeClusterState } from './state';

export const LAB_TOKEN = 'gdrlab-token-0123456789abcdef';

export interface KubeRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
}

export interface KubeLab {
  readonly url: string;
  readonly kubeconfigPath: string;
  readonly caData: string;
  readonly state: KubeClusterState;
  readonly requests: KubeRequest[];
  /** Exec and attach sessions still open. */
  openStreams(): number;
  /** A kubeconfig for this server (context `lab`, namespace default) with this token. */
  writeKubeconfig(file: string, opts?: { token?: string; context?: string }): string;
  stop(): Promise<void>;
}

export async function startKubeLab(lab: Lab, spec: KubeClusterSpec, dir = path.join(lab.dir, 'kube')): Promise<KubeLab> {
  const certs = makeCerts(dir);
  const state = new KubeClusterState(lab, spec);
  await state.build();
  const requests: KubeRequest[] = [];
  const server = https.createServer({ key: certs.keyPem, cert: certs.certPem });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => EXEC_PROTOCOLS.find((p) => offered.has(p)) ?? false });
  const watches = new Set<ServerResponse>();
  let streams = 0;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://lab');
    requests.push({ method: req.method ?? '', path: url.pathname, query: url.search });
    if (!authorized(req)) return send(res, 401, unauthorized());
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      route(state, req.method ?? 'GET', url, body, res, watches, address()).catch((e: unknown) =>
        send(res, 500, status(500, 'InternalError', String(e))),
      );
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const url = new URL(req.url ?? '/', 'https://lab');
    requests.push({ method: 'UPGRADE', path: url.pathname, query: url.search });
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach)$/.exec(url.pathname);
    const p = m ? findPod(state, m[1], m[2]) : undefined;
    if (!authorized(req) || !m || !p) {
      socket.end(`HTTP/1.1 ${authorized(req) ? 404 : 401} Lab\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const argv = m[3] === 'exec' ? url.searchParams.getAll('command') : attachArgv(p, url.searchParams.get('container'));
    const host = state.hostOf((p.spec as { nodeName: string }).nodeName);
    wss.handleUpgrade(req, socket, head, (ws) => {
      streams++;
      bridge(ws, sshSpawn(lab.sshConfigPath, host.name, argv), argv, () => streams--);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = () => `127.0.0.1:${(server.address() as { port: number }).port}`;
  const url = `https://${address()}`;
  const caData = Buffer.from(certs.caPem).toString('base64');
  const writeKubeconfig = (file: string, opts: { token?: string; context?: string } = {}) => {
    const context = opts.context ?? 'lab';
    fs.writeFileSync(file, kubeconfigYaml(url, caData, opts.token ?? LAB_TOKEN, context), { mode: 0o600 });
    return file;
  };
  const kubeconfigPath = writeKubeconfig(path.join(dir, 'kubeconfig'));
  return {
    url,
    kubeconfigPath,
    caData,
    state,
    requests,
    openStreams: () => streams,
    writeKubeconfig,
    stop: async () => {
      for (const w of watches) w.end();
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const authorized = (req: IncomingMessage): boolean => req.headers.authorization === `Bearer ${LAB_TOKEN}`;

function kubeconfigYaml(server: string, ca: string, token: string, context: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: ${ca}
    server: ${server}
  name: gdrlab
contexts:
- context:
    cluster: gdrlab
    namespace: default
    user: gdrlab-admin
  name: ${context}
current-context: ${context}
users:
- name: gdrlab-admin
  user:
    token: ${token}
`;
}

/** A debug pod's command, as the container runs it once attached; its `chroot /host` is the node's `/` here. */
function attachArgv(p: Json, container: string | null): string[] {
  const c = (p.spec as { containers: { name: string; command?: string[]; args?: string[] }[] }).containers.find(
    (x) => !container || x.name === container,
  );
  const argv = [...(c?.command ?? []), ...(c?.args ?? [])];
  return argv[0] === 'chroot' && argv[1] === '/host' ? ['chroot', '/', ...argv.slice(2)] : argv;
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function status(code: number, reason: string, message: string, details?: Json): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

const unauthorized = () => status(401, 'Unauthorized', 'Unauthorized');
const notFound = (kind: string, name: string, group = '') =>
  status(404, 'NotFound', `${kind}${group ? '.' + group : ''} "${name}" not found`, { name, ...(group ? { group } : {}), kind });

function findPod(state: KubeClusterState, ns: string, name: string): Json | undefined {
  return state.pods.find(
    (p) => (p.metadata as { namespace: string; name: string }).namespace === ns && (p.metadata as { name: string }).name === name,
  );
}

function list(kind: string, apiVersion: string, items: Json[], url: URL): Json {
  const labels = labelSelector(url.searchParams.get('labelSelector'));
  const fields = fieldSelector(url.searchParams.get('fieldSelector'));
  const kept = items.filter((o) => labels(((o.metadata as Json).labels ?? {}) as Record<string, string>) && fields(o));
  const bare = kept.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  return { kind: `${kind}List`, apiVersion, metadata: { resourceVersion: nextResourceVersion() }, items: bare };
}

async function route(
  state: KubeClusterState,
  method: string,
  url: URL,
  body: Buffer,
  res: ServerResponse,
  watches: Set<ServerResponse>,
  address: string,
): Promise<void> {
  const p = url.pathname.replace(/\/$/, '');
  if (p === '/version') return send(res, 200, version);
  if (p === '/api') return send(res, 200, coreVersions(address));
  if (p === '/api/v1') return send(res, 200, coreV1);
  // A CRD's group is served where its operator is installed.
  const groups = Object.keys(CUSTOM_GROUPS).filter((gv) =>
    gv.startsWith('nvidia.com') ? state.spec.clusterPolicy !== null : state.spec.nicClusterPolicy === true,
  );
  if (p === '/apis') return send(res, 200, groupList(groups));
  for (const gv of groups) {
    if (p === `/apis/${gv}`) return send(res, 200, groupResources(gv));
    const g = CUSTOM_GROUPS[gv];
    const m = new RegExp(`^/apis/${gv.replace('.', '\\.')}/${g.resource}(?:/([^/]+))?$`).exec(p);
    if (m) return customResource(state, gv, m[1], method, body, url, res);
  }
  if (p === '/api/v1/nodes' && method === 'GET') return send(res, 200, list('Node', 'v1', state.nodes, url));
  let m = /^\/api\/v1\/nodes\/([^/]+)$/.exec(p);
  if (m && method === 'GET') {
    const n = state.nodes.find((x) => (x.metadata as { name: string }).name === m?.[1]);
    return send(res, n ? 200 : 404, n ?? notFound('nodes', m[1]));
  }
  m = /^\/api\/v1(?:\/namespaces\/([^/]+))?\/pods$/.exec(p);
  if (m) return podCollection(state, m[1], method, body, url, res, watches);
  m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(?:\/(log))?$/.exec(p);
  if (m) return onePod(state, m[1], m[2], m[3], method, url, res);
  send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
}

async function customResource(
  state: KubeClusterState,
  gv: string,
  name: string | undefined,
  method: string,
  body: Buffer,
  url: URL,
  res: ServerResponse,
): Promise<void> {
  const g = CUSTOM_GROUPS[gv];
  const obj = gv.startsWith('nvidia.com') ? state.clusterPolicy : state.nicClusterPolicy;
  if (name === undefined) return send(res, 200, list(g.kind, gv, obj ? [obj] : [], url));
  if (!obj || (obj.metadata as { name: string }).name !== name) return send(res, 404, notFound(g.resource, name, g.group));
  if (method === 'PATCH' && gv.startsWith('nvidia.com')) {
    await state.patchClusterPolicy(JSON.parse(body.toString('utf8')) as Json);
    return send(res, 200, state.clusterPolicy);
  }
  send(res, 200, obj);
}

async function podCollection(
  state: KubeClusterState,
  ns: string | undefined,
  method: string,
  body: Buffer,
  url: URL,
  res: ServerResponse,
  watches: Set<ServerResponse>,
): Promise<void> {
  if (method === 'POST' && ns)
    return send(res, 201, createPod(state, ns, isProtobuf(body) ? podFromProtobuf(body) : (JSON.parse(body.toString('utf8')) as Json)));
  const inNs = state.pods.filter((x) => !ns || (x.metadata as { namespace: string }).namespace === ns);
  const l = list('Pod', 'v1', inNs, url);
  if (url.searchParams.get('watch') !== 'true') return send(res, 200, l);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  for (const item of l.items as Json[])
    res.write(JSON.stringify({ type: 'ADDED', object: { kind: 'Pod', apiVersion: 'v1', ...item } }) + '\n');
  watches.add(res);
  res.on('close', () => watches.delete(res));
}

/** `kubectl debug node/<n>` posts its pod; here it is scheduled and running at once. */
function createPod(state: KubeClusterState, ns: string, pod: Json): Json {
  const meta = pod.metadata as Json;
  const spec = pod.spec as { nodeName: string; containers: { name: string; image: string }[] };
  const created = {
    ...pod,
    metadata: {
      ...meta,
      namespace: ns,
      uid: crypto.randomUUID(),
      resourceVersion: nextResourceVersion(),
      creationTimestamp: new Date().toISOString(),
    },
    status: {
      phase: 'Running',
      hostIP: state.hostOf(spec.nodeName).address,
      containerStatuses: spec.containers.map((c) => ({
        name: c.name,
        image: c.image,
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: new Date().toISOString() } },
      })),
    },
  };
  state.pods.push(created);
  return created;
}

async function onePod(
  state: KubeClusterState,
  ns: string,
  name: string,
  sub: string | undefined,
  method: string,
  url: URL,
  res: ServerResponse,
): Promise<void> {
  const p = findPod(state, ns, name);
  if (!p) return send(res, 404, notFound('pods', name));
  if (sub === 'log') return podLog(state, p, url, res);
  if (method === 'DELETE') {
    if (isDriverPod(p)) await state.restartDriverPod(p);
    else state.pods = state.pods.filter((x) => x !== p);
    return send(res, 200, p);
  }
  send(res, 200, p);
}

function podLog(state: KubeClusterState, p: Json, url: URL, res: ServerResponse): void {
  const name = (p.metadata as { name: string }).name;
  const container = url.searchParams.get('container') ?? '';
  const log = state.logs.get(`${name}/${container}`);
  const previous = url.searchParams.get('previous') === 'true';
  const text = previous ? log?.previous : log?.current;
  if (text === undefined) {
    const msg = previous
      ? `previous terminated container "${container}" in pod "${name}" not found`
      : `container "${container}" in pod "${name}" is not available`;
    return send(res, 400, status(400, 'BadRequest', msg));
  }
  const tail = Number(url.searchParams.get('tailLines') ?? '0');
  const lines = text.split(/(?<=\n)/);
  const kept = tail > 0 ? lines.slice(-tail).join('') : text;
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end(kept);
}
