// A fault-injection proxy between Drainboard and the real API server: plain HTTP towards Drainboard, the cluster
// admin's client certificate towards the API server. Rules answer chosen requests with a status of their choice
// (and may wait first), pass them through late, or drop their connection; everything else passes through, watches
// included. Open pass-through requests (watches) can be cut at any time, and every request is logged.
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
  const requests = [];
  const open = new Set();
  const server = createServer(async (req, res) => {
    const logged = { method: req.method, url: req.url, at: Date.now(), status: null };
    requests.push(logged);
    const rule = rules.find((r) => r.left > 0 && r.method === req.method && r.path.test(req.url));
    if (rule && rule.pass > 0) {
      rule.pass -= 1;
    } else if (rule) {
      rule.left -= 1;
      rule.hits.push(Date.now());
      if (rule.delayMs) await new Promise((r) => setTimeout(r, rule.delayMs));
      if (rule.drop) {
        req.socket.destroy();
        return;
      }
      if (rule.status) {
        logged.status = rule.status;
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
      logged.status = answer.statusCode;
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    const entry = { method: req.method, url: req.url, cut: () => { forward.destroy(); req.socket.destroy(); } };
    open.add(entry);
    // A client gone (or cut) ends the upstream request too: a watch would otherwise run on for minutes.
    res.on('close', () => { open.delete(entry); forward.destroy(); });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  // No idle timeout on the client's keep-alive connections (Node's default closes them after 5 s): a client that
  // sends its next request just as the proxy closes one gets no answer, a fault nobody asked for. close() ends them.
  server.keepAliveTimeout = 0;
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
    /**
     * Answers the next `times` requests matching `method` and `path` (a RegExp on the path and query) with `status`,
     * `body` (a string is sent as text/plain, anything else as JSON) and `headers`, after `delayMs`. Without
     * `status`, the request passes through after `delayMs` (a slow answer); with `drop`, its connection is destroyed
     * instead of answered. The first `pass` matching requests pass through untouched and are not counted. The rule's
     * `hits` holds the time of each request it took; setting its `left` to 0 disarms it.
     */
    rule({ method, path, times = 1, status, body, headers, delayMs, drop = false, pass = 0 }) {
      const rule = { method, path, left: times, status, body, headers, delayMs, drop, pass, hits: [] };
      rules.push(rule);
      return rule;
    },
    /** Destroys the connections of the open pass-through requests (watches) matching `method` and `path`; says how many. */
    cut(method, path) {
      const matching = [...open].filter((e) => e.method === method && path.test(e.url));
      for (const e of matching) { open.delete(e); e.cut(); }
      return matching.length;
    },
    /** Every request seen, in order: `{method, url, at, status}` (`status` null until answered; dropped ones stay null). */
    requests,
    close: () => new Promise((resolve) => {
      server.close(() => { agent.destroy(); resolve(); });
      for (const s of sockets) s.destroy();
    }),
  };
}

/**
 * A Kubernetes Status body, as the API server writes it (`metav1.Status`): e.g. `status(404, 'NotFound', 'pods "web-1"
 * not found', { name: 'web-1', kind: 'pods' })` or `status(503, 'ServiceUnavailable', '…')`.
 */
export function status(code, reason, message, details = {}) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code };
}
