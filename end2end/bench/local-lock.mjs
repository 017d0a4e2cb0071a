// Local mode's lock for the benchmarks' servers. A local server serves only requests that carry its secret (see
// server/src/local_lock.rs), so every server a benchmark starts gets one fixed secret per run, given in its
// environment (`DRAINBOARD_LOCAL_TOKEN`); scripts send it as `Authorization: Bearer`, browser contexts hold the
// cookie that opening the printed URL would have set. Builds from before the lock print a URL without a secret
// and ignore both, so the same benchmark still runs them side by side.
import { randomBytes } from 'node:crypto';

/** This run's secret: 32 random bytes as 64 hex digits. */
export const localToken = randomBytes(32).toString('hex');

/** `env` (default: this process's) with this run's secret for a server to start with. */
export function lockedEnv(env = process.env) {
  return { ...env, DRAINBOARD_LOCAL_TOKEN: localToken };
}

/** The server's base URL (`http://127.0.0.1:PORT`) from the URL it printed, which may carry `/?token=…`. */
export function origin(printed) {
  return new URL(printed).origin;
}

/** `fetch` options `init` with the secret as a bearer token. */
export function authorized(init = {}) {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${localToken}`);
  return { ...init, headers };
}

/** Gives a browser `context` the cookie of the local server at `url`, as opening its printed URL would. */
export async function unlock(context, url) {
  const { hostname, port } = new URL(url);
  await context.addCookies([{
    name: `drainboard-local-${port}`, value: localToken, domain: hostname, path: '/', httpOnly: true, sameSite: 'Strict',
  }]);
}
