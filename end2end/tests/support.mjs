// Shared helpers for the browser tests: Debian's Chromium through playwright-core, a drainboard server on a free
// port, and kubectl against the local control plane. The test command (../../test-all) sets the environment.
import { spawn, execFileSync } from 'node:child_process';
import { before, after } from 'node:test';
import { mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..');
export const artifactsDir = join(repoRoot, 'end2end', 'artifacts');
mkdirSync(artifactsDir, { recursive: true });

export function requireEnv(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests through ./test-all`);
  return value;
}

/** Runs the pinned kubectl against the test cluster and returns its stdout. */
export function kubectl(...args) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  return execFileSync(bin, ['--kubeconfig', requireEnv('KUBECONFIG'), ...args], { encoding: 'utf8' });
}

/**
 * Starts the cargo-leptos-built server, on a free port unless `addr` names one (`host:port`, e.g. to restart a
 * server where its pages are still connected); resolves with its URL and a stop function. `stop()` sends SIGTERM
 * and waits for the exit; `stop('SIGKILL')` ends it at once, like a crash.
 */
export async function startDrainboard(extraArgs = [], { addr = '127.0.0.1:0' } = {}) {
  const bin = requireEnv('DRAINBOARD_BIN');
  const child = spawn(bin, ['--addr', addr, '--kubeconfig', requireEnv('KUBECONFIG'), ...extraArgs], {
    cwd: repoRoot,
    env: { ...process.env, LEPTOS_SITE_ROOT: requireEnv('LEPTOS_SITE_ROOT') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`drainboard did not start in 30 s:\n${stderr}`)), 30_000);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/serving on (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`drainboard exited with ${code}:\n${stderr}`)); });
  });
  const stop = (signal = 'SIGTERM') => new Promise((resolve) => {
    // A process ended by a signal keeps exitCode null and sets signalCode instead.
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill(signal);
  });
  return { url, stop, logs: () => stderr };
}

/**
 * Launches Debian's Chromium headless with no background network traffic. playwright-core gives every launch a
 * fresh temporary profile of its own.
 */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/**
 * Registers hooks that start one drainboard server and one browser for the test file, and stop them after.
 * Returns an object whose `server` and `browser` are set once the hooks have run.
 */
export function useServerAndBrowser() {
  const ctx = { server: null, browser: null };
  before(async () => {
    ctx.server = await startDrainboard();
    ctx.browser = await launchBrowser();
  });
  after(async () => {
    await ctx.browser?.close();
    await ctx.server?.stop();
  });
  return ctx;
}

/** Runs a node failure switch of the local control plane: `not-ready`, `unreachable` or `restore`. */
export function harness(action, node) {
  execFileSync(join(repoRoot, 'end2end', 'cluster', 'cluster.sh'), [action, requireEnv('DRAINBOARD_CLUSTER_DIR'), node]);
}

/** Creates namespace `ns` with one running pod `name` bound to `node`, and waits until it is Ready. */
export function podOnNode(ns, name, node) {
  kubectl('create', 'namespace', ns);
  kubectl('run', name, '-n', ns, '--image=busybox:1.37', `--overrides={"apiVersion":"v1","spec":{"nodeName":"${node}"}}`);
  kubectl('wait', '-n', ns, '--for=condition=Ready', `pod/${name}`, '--timeout=60s');
}
