// A fault-injection proxy between Drainboard and the real API server: plain HTTP towards Drainboard, the cluster
// admin's client certificate towards the API server. Rules answer chosen requests with a status of their choice
// (and may wait first); everything else passes through, watches included.
import { createServer } from 'node:http';
import { Agent, request as upstreamRequest } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireEnv } from './support.mjs';

export async function faultProxy() {
  const dir = requireEnv('DRAINBOARD_CLUSTER_DIR');
  const admin = readFileSync(join(dir, 'admin.kubeconfig'), 'utf8');
  const upstream = new URL(admin.match(/server:\s*(\S+)/)[1]);
  const agent = new Agent({
    ca: readFileSync(join(dir, 'pki', 'ca.crt')),
    cert: readFileSync(join(dir, 'pki', 'admin.crt')),
    key: readFileSync(join(dir, 'pki', 'admin.key')),
    keepAlive: true,
  });
  const rules = [];
  const sockets = new Set();
  const server = createServer(async (req, res) => {
    const rule = rules.find((r) => r.left > 0 && r.method === req.method && r.path.test(req.url));
    if (rule) {
      rule.left -= 1;
      rule.hits.push(Date.now());
      if (rule.delayMs) await new Promise((r) => setTimeout(r, rule.delayMs));
      if (rule.status) {
        req.resume();
        const text = typeof rule.body === 'string';
        res.writeHead(rule.status, { 'content-type': text ? 'text/plain; charset=utf-8' : 'application/json', ...(rule.headers ?? {}) });
        res.end(text ? rule.body : JSON.stringify(rule.body ?? {}));
        return;
      }
    }
    const headers = { ...req.headers, host: upstream.host };
    const forward = upstreamRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url,
      headers, agent }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const kubeconfig = join(dir, `fault-proxy-${server.address().port}.kubeconfig`);
  writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters:
- name: proxied
  cluster: {server: "${url}"}
users:
- name: proxied
  user: {}
contexts:
- name: proxied
  context: {cluster: proxied, user: proxied}
current-context: proxied
`);
  return {
    kubeconfig,
    /** Answers the next `times` requests matching `method` and `path` with `status` and `body` (after `delayMs`). */
    rule({ method, path, times = 1, status, body, headers, delayMs }) {
      const rule = { method, path, left: times, status, body, headers, delayMs, hits: [] };
      rules.push(rule);
      return rule;
    },
    close: () => new Promise((resolve) => { server.close(() => resolve()); for (const s of sockets) s.destroy(); }),
  };
}

/** A Kubernetes Status body. */
export function status(code, reason, message, details = {}) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code };
}
