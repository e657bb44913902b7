import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadConfig } from '../../functions/src/config.ts';
import { createApp } from '../../functions/src/app.ts';
import { silentLogger } from '../../functions/src/core/logger.ts';
import { OUTBOX_QUEUE, type OutboxRecord } from '../../functions/src/core/outbox.ts';
import { startSmtp, mailText } from '../fakes/smtp.ts';
import { startFakeGmail, gmailEnv, type FakeGmail } from '../fakes/gmail.ts';
import { invoicePdf } from '../fakes/pdfs.ts';
import { get, post } from '../http.ts';
import { confirmToken } from '../consent.ts';
import { buildFunctions } from '../../scripts/build-functions.ts';

/**
 * Boots the Firebase emulator suite (functions, hosting, tasks) on the functions entry (the bundle), calls the API
 * through the Hosting rewrite and runs an outbox delivery through the Cloud Tasks emulator.
 * With gcloud's Firestore emulator (TEST_FIRESTORE_EMULATOR_HOST from .ci/run, else started here), the functions run
 * on Firestore, as `npm run emulators` does; otherwise on the embedded store in DATA_DIR. The admin CLI
 * and this test open the same store.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIREBASE = join(ROOT, 'node_modules/firebase-tools/lib/bin/firebase.js');

/**
 * Without a given emulator, start gcloud's with the script `npm run emulators` uses (it prints nothing
 * where the machine lacks it), so a plain `npm test` covers the Firestore path too.
 */
let stopOwnEmulator = () => {};
async function ownFirestoreEmulator(): Promise<string> {
  if (process.env.TEST_FIRESTORE_EMULATOR_HOST || !existsSync(FIREBASE)) return process.env.TEST_FIRESTORE_EMULATOR_HOST || '';
  const dir = mkdtempSync(join(tmpdir(), 'bfo-firestore-'));
  const { stdout } = await run('bash', [join(ROOT, 'scripts/firestore-emulator.sh')], { env: { ...process.env, TMPDIR: dir }, timeout: 90_000 }).catch(() => ({ stdout: '' }));
  const pidFile = join(dir, 'firestore-emulator.pid');
  stopOwnEmulator = () => {
    stopOwnEmulator = () => {};
    // The script started it as a process group of its own: this ends the gcloud wrapper and its Java server.
    if (existsSync(pidFile)) try { process.kill(-Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM'); } catch { /* already gone */ }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => stopOwnEmulator());
  return stdout.trim();
}
const FIRESTORE_HOST = await ownFirestoreEmulator();
/** The store settings the functions, the admin CLI and the test share. */
const storeEnv = (dataDir: string): Record<string, string> =>
  FIRESTORE_HOST
    ? { DATA_DIR: dataDir, FIRESTORE_EMULATOR_HOST: FIRESTORE_HOST, GCLOUD_PROJECT: 'demo-bfo', STORE: 'firestore', FILES: 'local', CREDENTIALS_KEY: 'emulator-test-credentials-key' }
    : { DATA_DIR: dataDir };
const BOOT_TIMEOUT_MS = 120_000;

async function firebaseUnavailable(): Promise<string | false> {
  if (!existsSync(FIREBASE)) return `firebase-tools is not installed (${FIREBASE} missing)`;
  try {
    await run(process.execPath, [FIREBASE, '--version'], { timeout: 60_000 });
    return false;
  } catch (e) {
    return `firebase cannot start: ${(e as Error).message.split('\n')[0]}`;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `unref`: a timer that loses a race must not hold the test process open. */
const sleep = (ms: number, unref = false) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (unref) timer.unref();
  });

test('every task queue App.taskHandlers serves is exported by the functions entry under its queue name', async () => {
  const entry = (await import('../../functions/src/index.ts')) as Record<string, { __endpoint?: { taskQueueTrigger?: unknown; httpsTrigger?: unknown; scheduleTrigger?: { schedule?: string } } }>;
  const dataDir = mkdtempSync(join(tmpdir(), 'bfo-entry-'));
  const app = await createApp(loadConfig({ DATA_DIR: dataDir }), { logger: silentLogger });
  try {
    const exported = Object.keys(entry).filter((k) => entry[k]?.__endpoint?.taskQueueTrigger).sort();
    assert.deepEqual(exported, Object.keys(app.taskHandlers).sort());
    assert.ok(exported.includes(OUTBOX_QUEUE));
    assert.ok(entry.api?.__endpoint?.httpsTrigger, 'api is an HTTPS function');
    assert.equal(entry.outboxSweep?.__endpoint?.scheduleTrigger?.schedule, 'every 5 minutes', 'production sweeps the outbox on a schedule');
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

const unavailable = await firebaseUnavailable();

describe('Firebase emulator suite', { skip: unavailable, timeout: BOOT_TIMEOUT_MS + 120_000 }, () => {
  let work = '';
  let dataDir = '';
  let emulators: ChildProcess | undefined;
  let exited: Promise<unknown> | undefined;
  let log = '';
  let hosting = '';
  let bootMs = 0;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let gmail: FakeGmail;
  let owner: { businessId: string; userId: string; apiKey: string };

  const tail = () => `\n--- emulator output (tail) ---\n${log.slice(-4000)}`;

  async function admin(...args: string[]) {
    const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: ROOT, env: { ...process.env, ...storeEnv(dataDir) } });
    return JSON.parse(stdout.trim());
  }

  before(async () => {
    await buildFunctions(); // the emulator runs functions/package.json main, the bundle of functions/src/index.ts
    work = mkdtempSync(join(tmpdir(), 'bfo-emulators-'));
    dataDir = join(work, 'data');
    const project = join(work, 'project');
    smtp = await startSmtp();
    gmail = await startFakeGmail();
    const [functions, host, tasks, hub, logging] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    // A throwaway project dir on the real sources with free ports, so parallel runs on one machine do not collide
    // and the repository's fixed ports stay for `npm run emulators`.
    const config = JSON.parse(readFileSync(join(ROOT, 'firebase.json'), 'utf8'));
    const at = (port: number) => ({ host: '127.0.0.1', port });
    config.emulators = { ...config.emulators, functions: at(functions), hosting: at(host), tasks: at(tasks), hub: at(hub), logging: at(logging), ui: { enabled: false } };
    mkdirSync(project);
    mkdirSync(dataDir);
    writeFileSync(join(project, 'firebase.json'), JSON.stringify(config, null, 2));
    for (const name of ['functions', 'dashboard', 'node_modules', 'firestore.rules', 'firestore.indexes.json']) {
      if (existsSync(join(ROOT, name))) symlinkSync(join(ROOT, name), join(project, name));
    }
    hosting = `http://127.0.0.1:${host}`;

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // The CLI and the functions it spawns (`#!/usr/bin/env node`) must run on this Node 24.
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      LOG_LEVEL: 'warn',
      // The mailbox provider is the fake Gmail; imports answer at once and are polled (AI stays off: attachments are stored unread).
      ...gmailEnv(gmail),
      MAILBOX_IMPORT_WAIT_MS: '0',
      // One mail at a time per batch: on the Firestore emulator, 10 invoice transactions in flight keep aborting each
      // other (26 invoices took 45 attempts; this import 35 s, against 4 s one at a time).
      MAILBOX_IMPORT_PARALLELISM: '1',
    };
    delete env.GEMINI_API_KEY;
    for (const k of ['FIRESTORE_EMULATOR_HOST', 'STORE', 'FILES', 'TASKS', 'PORT', 'HOST']) delete env[k];
    // With gcloud's Firestore emulator, the emulated functions run on Firestore (config.ts picks it from FIRESTORE_EMULATOR_HOST).
    if (FIRESTORE_HOST) Object.assign(env, { FIRESTORE_EMULATOR_HOST: FIRESTORE_HOST, CREDENTIALS_KEY: 'emulator-test-credentials-key' });

    const started = Date.now();
    emulators = spawn(process.execPath, [FIREBASE, 'emulators:start', '--project', 'demo-bfo', '--only', 'functions,hosting,tasks'], {
      cwd: project,
      env,
      detached: true, // its own process group: after() ends the CLI and every runtime it started
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    emulators.stdout!.on('data', (c) => (log += c));
    emulators.stderr!.on('data', (c) => (log += c));
    exited = new Promise((resolve) => emulators!.once('exit', resolve));
    let gone = false;
    void exited.then(() => (gone = true));
    while (!log.includes('All emulators ready')) {
      if (gone) throw new Error(`the emulators exited before they were ready${tail()}`);
      if (Date.now() - started > BOOT_TIMEOUT_MS) throw new Error(`the emulators were not ready after ${BOOT_TIMEOUT_MS} ms${tail()}`);
      await sleep(100);
    }
    bootMs = Date.now() - started;
    owner = await admin('create-business', '--name', 'Emulator Test Ltd', '--email', 'owner@example.com');
  });

  after(async () => {
    if (emulators?.pid && emulators.exitCode === null && emulators.signalCode === null) {
      try {
        process.kill(-emulators.pid, 'SIGINT'); // lets the CLI stop its emulators cleanly
      } catch {}
      const stopped = await Promise.race([exited!.then(() => true), sleep(15_000, true).then(() => false)]);
      if (!stopped) console.error('emulators did not stop on SIGINT; killing the group');
    }
    if (emulators?.pid) {
      try {
        process.kill(-emulators.pid, 'SIGKILL'); // any runtime the CLI left behind, even if the CLI itself died early
      } catch {}
    }
    await smtp?.close();
    await gmail?.close();
    if (work) rmSync(work, { recursive: true, force: true });
    stopOwnEmulator();
  });

  test('the API answers through the Hosting rewrites in the spec envelope', async (t) => {
    t.diagnostic(`emulator suite ready in ${bootMs} ms; store: ${FIRESTORE_HOST ? `Firestore emulator at ${FIRESTORE_HOST}` : 'embedded SQLite'}`);
    const firstCall = Date.now();
    const catalogue = await get(hosting, '/v1');
    t.diagnostic(`first call (functions runtime cold start) took ${Date.now() - firstCall} ms`);
    assert.equal(catalogue.status, 200, `GET /v1: ${JSON.stringify(catalogue.body)}${tail()}`);
    assert.equal(catalogue.body.ok, true);
    // The dashboard's build is Hosting's public folder; a deep link gets its index.html, with the app's CSP.
    const deep = await fetch(`${hosting}/payments/some-id`);
    assert.equal(deep.status, 200);
    assert.match(deep.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.match(await deep.text(), /<div id="root">/);

    for (const base of ['/v1', '/api/v1']) {
      const res = await get(hosting, `${base}/whoami`, owner.apiKey);
      assert.equal(res.status, 200, `${base}/whoami: ${JSON.stringify(res.body)}${tail()}`);
      assert.equal(res.body.ok, true);
      assert.equal(res.body.result.businessId, owner.businessId);
      assert.equal(res.body.result.role, 'admin');
      assert.ok(res.headers.get('x-request-id'), 'a request id header');
    }

    const posted = await post(hosting, '/v1/whoami', {}, owner.apiKey);
    assert.equal(posted.status, 200);
    assert.equal(posted.body.result.userId, owner.userId);

    // No Content-Type: the framework's parsers skip the body, and the entry must still pass it on.
    const bare = await fetch(`${hosting}/v1/whoami`, { method: 'POST', headers: { authorization: `Bearer ${owner.apiKey}` }, body: new TextEncoder().encode('{}') });
    assert.equal(bare.status, 200, `POST without Content-Type: ${await bare.clone().text()}`);
    assert.equal(((await bare.json()) as any).result.businessId, owner.businessId);

    const denied = await get(hosting, '/v1/whoami');
    assert.equal(denied.status, 401);
    assert.deepEqual(Object.keys(denied.body), ['ok', 'error']);
    assert.equal(denied.body.ok, false);
    assert.equal(denied.body.error.code, 'unauthenticated');

    const unknown = await post(hosting, '/v1/noSuchOperation', {}, owner.apiKey);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not-found');
  });

  test('inviteMember enqueues an outbox delivery that the Cloud Tasks emulator runs: the email arrives and the record is delivered', async () => {
    const invitee = 'new.member@example.com';
    const res = await post(hosting, '/v1/inviteMember', { email: invitee, role: 'user' }, owner.apiKey);
    assert.equal(res.status, 200, `inviteMember: ${JSON.stringify(res.body)}${tail()}`);
    assert.equal(res.body.ok, true);

    const mails = await smtp.waitFor(1, 60_000);
    const mail = mails.find((m) => m.to.includes(invitee));
    assert.ok(mail, `the invite email reached the SMTP server${tail()}`);
    // Base addresses default to the Hosting emulator, as the emulator hub reports it.
    assert.ok(mailText(mail.raw).includes(`${hosting}/`), `the invite link is on the Hosting origin ${hosting}: ${mailText(mail.raw)}`);

    // The task handler marks the record after the send; read it from the same store the functions use.
    // firebase-admin finds the emulator and the project in the process environment.
    if (FIRESTORE_HOST) Object.assign(process.env, { FIRESTORE_EMULATOR_HOST: FIRESTORE_HOST, GCLOUD_PROJECT: 'demo-bfo' });
    const app = await createApp(loadConfig(storeEnv(dataDir)), { logger: silentLogger });
    try {
      let records: OutboxRecord[] = [];
      for (const until = Date.now() + 30_000; Date.now() < until; await sleep(200)) {
        const docs = await app.services.store.query({ collection: `businesses/${owner.businessId}/outbox` });
        records = docs.map((d) => d.data as unknown as OutboxRecord).filter((r) => r.to === invitee);
        if (records.length && records.every((r) => r.status !== 'pending')) break;
      }
      assert.equal(records.length, 1, `one outbox record for the invite${tail()}`);
      assert.equal(records[0].channel, 'email');
      assert.equal(records[0].status, 'delivered', `outbox record: ${JSON.stringify(records[0])}${tail()}`);
      assert.equal(records[0].attempts, 1);
      assert.ok(records[0].deliveredAt);
    } finally {
      await app.close();
    }
    assert.equal(smtp.mails.filter((m) => m.to.includes(invitee)).length, 1, 'delivered exactly once');
  });

  test('a mailbox import connected to the fake Gmail runs its batches through the Cloud Tasks emulator: the mails are imported', async (t) => {
    // 26 mails with an invoice and a note: two batches of the mailboxImportBatch queue.
    const T = Date.parse('2026-02-01T00:00:00Z');
    for (let i = 0; i < 26; i++) {
      const pdf = await invoicePdf({ number: `EMU-${i}` });
      gmail.add({ id: `emu${i}`, from: `Supplier ${i} <s${i}@supplier.example>`, subject: `Invoice EMU-${i}`, dateMs: T + i * 60_000, body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'text/plain', data: Buffer.from('attached') }, { mimeType: 'application/pdf', data: pdf, filename: `EMU-${i}.pdf` }] } });
    }
    gmail.add({ id: 'emu-note', from: 'friend@example.com', subject: 'Lunch?', dateMs: T + 30 * 60_000, body: { mimeType: 'text/plain', data: Buffer.from('lunch tomorrow?') } });

    // The consent as a browser does it: the fake approves and redirects to the return page behind Hosting.
    const start = await post(hosting, '/v1/mailboxConnectStart', { origin: hosting }, owner.apiKey);
    assert.equal(start.status, 200, `mailboxConnectStart: ${JSON.stringify(start.body)}${tail()}`);
    const consent = await fetch(start.body.result.url, { redirect: 'manual' });
    const location = consent.headers.get('location') ?? '';
    assert.ok(location.startsWith(`${hosting}/oauth/`), `the consent returns to the Hosting origin: ${location}`);
    const back = await fetch(location);
    const asked = await back.text();
    assert.equal(back.status, 200, `the return page: ${asked}${tail()}`);
    // The page asks which business and mailbox to connect; the person confirms with its form (a POST behind Hosting).
    const token = confirmToken(asked);
    assert.ok(token, `the return page asks to confirm: ${asked}`);
    const confirmed = await fetch(new URL('confirm', location), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, decision: 'confirm' }) });
    assert.equal(confirmed.status, 200, `the confirmation: ${await confirmed.clone().text()}${tail()}`);
    const accounts = await post(hosting, '/v1/mailboxListAccounts', {}, owner.apiKey);
    const accountId = accounts.body.result.items.at(-1)?.accountId;
    assert.ok(accountId, `the mailbox is connected: ${JSON.stringify(accounts.body)}`);

    const importId = 'emulatorimport000001';
    const first = await post(hosting, '/v1/mailboxImportStart', { accountId, since: T - 1000, importId }, owner.apiKey);
    assert.equal(first.status, 200, `mailboxImportStart: ${JSON.stringify(first.body)}${tail()}`);
    assert.equal(first.body.result.total, 27);
    let r = first.body.result;
    for (const until = Date.now() + 90_000; r.status === 'running' && Date.now() < until; ) {
      await sleep(500);
      // The same importId answers the import's progress and starts nothing.
      r = (await post(hosting, '/v1/mailboxImportStart', { accountId, since: T - 1000, importId }, owner.apiKey)).body.result;
    }
    t.diagnostic(`import: ${JSON.stringify(r)}`);
    assert.equal(r.status, 'done', `the import finished${tail()}`);
    assert.deepEqual([r.seen, r.invoices, r.noInvoice, r.errors], [27, 26, 1, 0]);
    assert.ok(log.includes('Beginning execution of "us-central1-mailboxImportBatch"'), `the Cloud Tasks emulator dispatched the batches to the task function${tail()}`);
    const listed = await post(hosting, '/v1/invoicesList', { source: 'mailbox' }, owner.apiKey);
    assert.equal(listed.body.result?.items?.length, 26, `the imported invoices: ${JSON.stringify(listed.body).slice(0, 500)}`);
  });

  test('with the Firestore emulator, the emulated functions keep their data in Firestore', { skip: !FIRESTORE_HOST && 'no Firestore emulator on this machine' }, async () => {
    // The business the admin CLI made is read back through Firestore's own REST API, not through our store.
    const res = await fetch(`http://${FIRESTORE_HOST}/v1/projects/demo-bfo/databases/(default)/documents/businesses/${owner.businessId}`);
    assert.equal(res.status, 200, `the business is a Firestore document${tail()}`);
    const members = await fetch(`http://${FIRESTORE_HOST}/v1/projects/demo-bfo/databases/(default)/documents/businesses/${owner.businessId}/outbox`);
    const body = (await members.json()) as { documents?: unknown[] };
    assert.ok((body.documents?.length ?? 0) >= 1, `the invite's outbox record, written by the emulated function, is in Firestore${tail()}`);
  });
});
