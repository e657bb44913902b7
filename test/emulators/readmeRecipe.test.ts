import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Issue 18 D11, "the README recipes work as written": the README's emulator recipe, run from the README's own
 * words. `npm run emulators` (the line that moves the ports, with a free base so it never meets a developer's
 * emulators), then the admin CLI's create-business as the README writes it, then whoami with the printed key on
 * the Hosting emulator. BFO_RUN_DIR, DATA_DIR and TMPDIR (all documented) keep the run's files out of the checkout.
 * Needs gcloud's Firestore emulator (`npm run emulators` runs the functions on Firestore only with it).
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const FIREBASE_PORT_BASE = 5301;

/** The same test scripts/firestore-emulator.sh makes: gcloud with its Firestore emulator component or package. */
async function firestoreEmulatorMissing(): Promise<string | false> {
  if (!existsSync(join(ROOT, 'node_modules/firebase-tools/lib/bin/firebase.js'))) return 'firebase-tools is not installed (npm ci)';
  const check =
    "command -v gcloud >/dev/null 2>&1 || exit 1; gcloud components list --only-local-state --format='value(id)' 2>/dev/null | grep -qx cloud-firestore-emulator || dpkg -s google-cloud-cli-firestore-emulator >/dev/null 2>&1";
  try {
    await run('bash', ['-c', check], { timeout: 60_000 });
    return false;
  } catch {
    return "gcloud's Firestore emulator is not installed (package google-cloud-cli-firestore-emulator): the README's emulator recipe is not run";
  }
}

/** The recipe's three steps, read from the README. */
function recipe() {
  const block = /Local emulators[^\n]*\n+```sh\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
  const shifted = /^(EMULATOR_PORT_BASE=)(\d+)( npm run emulators)\b.*$/m.exec(block);
  const para = README.slice(README.indexOf('While they run, the admin CLI'));
  const createBusiness = /`(npm run --silent admin -- create-business [^`]+)`/.exec(para)?.[1];
  const whoami = /`(http:\/\/127\.0\.0\.1:(\d+)\/v1\/whoami)`/.exec(para);
  return { shifted, createBusiness, whoami };
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A base with the six ports of firebase.json's emulators (5301-5306, shifted) free. */
async function freeBase(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const base = 20_000 + Math.floor(Math.random() * 2_000) * 10;
    let ok = true;
    for (let p = base; p < base + 6 && ok; p++) ok = await portFree(p);
    if (ok) return base;
  }
  throw new Error('no six free consecutive ports');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const BOOT_TIMEOUT_MS = 240_000;
const missing = await firestoreEmulatorMissing();

describe("the README's emulator recipe, as written", { skip: missing, timeout: BOOT_TIMEOUT_MS + 120_000 }, () => {
  let work = '';
  let env: NodeJS.ProcessEnv = {};
  let child: ChildProcess | undefined;
  let exited: Promise<unknown> | undefined;
  let log = '';
  let base = 0;
  const tail = () => `\n--- npm run emulators (tail) ---\n${log.slice(-3000)}`;
  const steps = recipe();

  /** Ends the recipe's process group the way Ctrl-C does, then makes sure nothing it started is left. */
  async function stop() {
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGINT');
      } catch {}
      await Promise.race([exited, sleep(20_000)]);
    }
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }
    // The Firestore emulator runs in a group of its own (setsid); the script's exit trap stops it, this covers a crash.
    const pidFile = join(work, 'tmp', 'firestore-emulator.pid');
    if (existsSync(pidFile)) {
      try {
        process.kill(-Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
      } catch {}
    }
  }

  before(async () => {
    assert.ok(steps.shifted, 'the README gives `EMULATOR_PORT_BASE=… npm run emulators`');
    assert.ok(steps.createBusiness, 'the README gives the create-business command');
    assert.ok(steps.whoami, 'the README gives the whoami URL on the Hosting emulator');
    work = mkdtempSync(join(tmpdir(), 'bfo-recipe-'));
    mkdirSync(join(work, 'tmp'));
    base = await freeBase();
    env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, BFO_RUN_DIR: work, DATA_DIR: join(work, 'data'), TMPDIR: join(work, 'tmp') };
    for (const k of ['FIRESTORE_EMULATOR_HOST', 'STORE', 'FILES', 'TASKS', 'PORT', 'HOST', 'GCLOUD_PROJECT', 'CLOUD_TASKS_EMULATOR_HOST', 'CREDENTIALS_KEY', 'EMULATOR_PORT_BASE']) delete env[k];
    const line = `${steps.shifted![1]}${base}${steps.shifted![3]}`;
    child = spawn('bash', ['-c', line], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c) => (log += c));
    child.stderr!.on('data', (c) => (log += c));
    exited = new Promise((resolve) => child!.once('exit', resolve));
    const started = Date.now();
    while (!log.includes('All emulators ready')) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm run emulators exited before it was ready${tail()}`);
      if (Date.now() - started > BOOT_TIMEOUT_MS) throw new Error(`npm run emulators was not ready after ${BOOT_TIMEOUT_MS} ms${tail()}`);
      await sleep(250);
    }
  });

  after(async () => {
    await stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('npm run emulators, then create-business as the README writes it, then whoami with the printed key', async (t) => {
    assert.match(log, /Firestore emulator \(gcloud\) at 127\.0\.0\.1:\d+: the emulated functions run on Firestore/, `the functions run on Firestore${tail()}`);
    const made = await run('bash', ['-c', steps.createBusiness!], { cwd: ROOT, env, timeout: 120_000 });
    t.diagnostic(`admin: ${made.stderr.trim()}`);
    // The CLI found the running emulators of this checkout and said so.
    assert.match(made.stderr, /used Firestore emulator at 127\.0\.0\.1:\d+ \(project demo-bfo\), the store of the running npm run emulators/);
    const printed = JSON.parse(made.stdout.trim()) as { businessId: string; apiKey: string };
    assert.match(printed.apiKey, /^bfo_/);

    const url = steps.whoami![1].replace(`:${steps.whoami![2]}/`, `:${Number(steps.whoami![2]) + base - FIREBASE_PORT_BASE}/`);
    const res = await fetch(url, { headers: { authorization: `Bearer ${printed.apiKey}` } });
    const body = (await res.json()) as any;
    assert.equal(res.status, 200, `whoami: ${JSON.stringify(body)}${tail()}`);
    assert.equal(body.result.businessId, printed.businessId);
    const name = /--name "([^"]+)"/.exec(steps.createBusiness!)?.[1];
    assert.equal(body.result.businessName, name);
    assert.equal(body.result.role, 'admin');
  });

  test('stopping npm run emulators (Ctrl-C) removes its run record, so the CLI no longer points at it', async () => {
    assert.ok(existsSync(join(work, '.bfo-run.json')), 'the running emulators left their record in BFO_RUN_DIR');
    await stop();
    assert.equal(existsSync(join(work, '.bfo-run.json')), false);
  });
});
