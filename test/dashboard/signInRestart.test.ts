import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { axe, freePort, ROOT } from './env.ts';
import { CHROMIUM, skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 items 1 and 12: `npm start` restarted on the same DATA_DIR, stopped as a user stops it (Ctrl-C, which
 * reaches the server alone: the emulator runs in a process group of its own) and killed hard (kill -9 of the
 * server), and once with the emulator's saved accounts gone: the owner signs in again each time, to the same
 * business. While the emulator boots the sign-in page says so; the link is printed in the npm start window.
 */
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HOME = 'מה מחכה לכם';
const EMAIL = 'dana@example.com';

describe('sign-in after npm start restarts (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bfo-restart-'));
  const saved = join(dataDir, 'auth-emulator', 'firebase-export-metadata.json');
  let env: NodeJS.ProcessEnv;
  let origin = '';
  let authPort = 0;
  let server: ChildProcess | undefined;
  let out = '';
  let browser: Browser | undefined;
  const problems: string[] = [];

  const portFree = async (port: number) => {
    for (const until = Date.now() + 30_000; Date.now() < until; await sleep(200)) {
      const open = await new Promise<boolean>((r) => {
        const s = connect(port, '127.0.0.1', () => (s.destroy(), r(true)));
        s.once('error', () => r(false));
      });
      if (!open) return;
    }
    assert.fail(`port ${port} still taken: the Auth emulator outlived the server\n${out.slice(-2000)}`);
  };
  /** `npm start`; resolves once the dashboard answers (the emulator may still be starting). */
  const start = async () => {
    out = '';
    server = spawn(process.execPath, [join(ROOT, 'functions/src/server.ts')], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (c) => (out += c));
    server.stderr!.on('data', (c) => (out += c));
    for (const until = Date.now() + 120_000; ; await sleep(200)) {
      if ((await fetch(origin + '/').catch(() => null))?.status === 200) return;
      if (server.exitCode !== null || Date.now() > until) assert.fail(`npm start did not come up:\n${out.slice(-3000)}`);
    }
  };
  const emulatorReady = async () => {
    for (const until = Date.now() + 120_000; !out.includes('Auth emulator ready'); await sleep(200)) if (Date.now() > until) assert.fail(`no Auth emulator:\n${out.slice(-3000)}`);
  };
  const stop = async (signal: 'SIGINT' | 'SIGKILL') => {
    const exited = new Promise((r) => server!.once('exit', r));
    process.kill(server!.pid!, signal);
    await exited;
    await portFree(authPort);
  };
  const page = async (context: BrowserContext): Promise<Page> => {
    const p = await context.newPage();
    p.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
    p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    p.on('requestfailed', (r) => r.failure()?.errorText !== 'net::ERR_ABORTED' && problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    p.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
    return p;
  };
  const context = async (width: number) => {
    const c = await browser!.newContext({ viewport: { width, height: 800 }, locale: 'he-IL', timezoneId: 'Asia/Jerusalem' });
    c.setDefaultTimeout(20_000);
    return c;
  };
  /** The email link as the owner follows it: the link printed in the npm start window. */
  const signIn = async (p: Page, check = false) => {
    await p.goto(origin + '/');
    await p.getByLabel('כתובת דוא"ל').fill(EMAIL);
    const printed = out.split('sign-in link').length;
    await p.getByRole('button', { name: 'שליחת קישור כניסה' }).click();
    const sent = p.getByRole('status');
    await sent.waitFor();
    if (check) {
      // The page says where the link is: the npm start window, and the emulator's oobCodes list (its real port).
      assert.match((await sent.textContent()) ?? '', /npm start/);
      assert.match((await sent.textContent()) ?? '', new RegExp(`http://127\\.0\\.0\\.1:${authPort}/emulator/v1/projects/demo-bfo/oobCodes`));
      await axe(p, 'the link-sent notice');
      assert.ok(((await p.evaluate('document.documentElement.scrollWidth')) as number) <= 360, 'the notice fits 360 px (no sideways scrolling)');
    }
    for (const until = Date.now() + 20_000; out.split('sign-in link').length === printed; await sleep(100)) if (Date.now() > until) assert.fail(`no sign-in link printed:\n${out.slice(-2000)}`);
    const line = out.split('\n').filter((l) => l.includes('sign-in link')).pop()!;
    const { email, link } = JSON.parse(line.slice(line.indexOf('{'))) as { email: string; link: string };
    assert.equal(email, EMAIL);
    await p.goto(link);
    await p.getByRole('heading', { name: HOME }).waitFor({ timeout: 30_000 });
    assert.match((await p.textContent('header')) ?? '', /Studio Dana/);
  };

  after(async () => {
    await browser?.close().catch(() => {});
    if (server && server.exitCode === null && server.signalCode === null) {
      process.kill(server.pid!, 'SIGINT');
      await Promise.race([new Promise((r) => server!.once('exit', r)), sleep(15_000)]);
    }
    if (authPort) await portFree(authPort).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('Ctrl-C, kill -9 and lost emulator accounts: the owner signs in again to the same business; "starting…" meanwhile', async () => {
    const [port, ap] = await Promise.all([freePort(), freePort()]);
    authPort = ap;
    origin = `http://127.0.0.1:${port}`;
    env = { ...process.env, DATA_DIR: dataDir, BFO_RUN_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', AUTH_EMULATOR_PORT: String(authPort), LOG_LEVEL: 'info' };
    delete env.FIREBASE_AUTH_EMULATOR_HOST;
    delete env.AUTH_EMULATOR;
    await start();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    await run(process.execPath, [join(ROOT, 'functions/src/admin.ts'), 'create-business', '--name', 'Studio Dana', '--email', EMAIL], { cwd: ROOT, env });
    await emulatorReady();
    let p = await page(await context(360));
    await signIn(p, true);
    await p.close();

    // Ctrl-C: the emulator saves its accounts into DATA_DIR on the way out.
    await stop('SIGINT');
    assert.ok(existsSync(saved), 'the emulator\'s accounts were saved in DATA_DIR');
    const savedAt = statSync(saved).mtimeMs;
    await start();
    // Before the emulator answers: "starting…", the buttons wait, no network error.
    const fresh = await context(1280);
    p = await page(fresh);
    await p.goto(origin + '/');
    const starting = p.getByText('שירות הכניסה המקומי עולה');
    await starting.waitFor();
    assert.ok(!out.includes('Auth emulator ready'), 'the page was checked while the emulator was still starting');
    assert.equal(await p.getByRole('button', { name: 'שליחת קישור כניסה' }).isDisabled(), true);
    await axe(p, 'sign-in while the emulator starts');
    await emulatorReady();
    await starting.waitFor({ state: 'hidden' });
    // The emulator imported its accounts but ends sessions older than the import: the owner signs in again.
    await signIn(p);
    await p.close();

    // kill -9 of the server: the emulator notices, saves its accounts and frees its port (portFree in stop).
    await stop('SIGKILL');
    assert.ok(statSync(saved).mtimeMs > savedAt, 'the accounts were saved again after kill -9');
    // And when they are lost anyway (a power cut): the emulator gives the owner a new uid, the email still gets in.
    rmSync(join(dataDir, 'auth-emulator'), { recursive: true, force: true });
    await start();
    await emulatorReady();
    p = await page(await context(360));
    await signIn(p);
    assert.deepEqual(problems, [], 'console errors or failed requests');
  });
});
