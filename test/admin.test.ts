import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { post } from './http.ts';

/** `npm start` and the admin commands, as documented: separate processes on one DATA_DIR. */
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'bfo-admin-'));
const port = 20000 + Math.floor(Math.random() * 20000);
const origin = `http://127.0.0.1:${port}`;
// BFO_RUN_DIR keeps the running-server record (functions/src/localRun.ts) out of the checkout during tests.
const runDir = mkdtempSync(join(tmpdir(), 'bfo-admin-run-'));
const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', BFO_RUN_DIR: runDir };
let server: ChildProcess;

async function admin(...args: string[]) {
  const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...args], { env });
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `exactly one line: ${stdout}`);
  return JSON.parse(lines[0]);
}

before(async () => {
  server = spawn('npm', ['start'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${origin}/v1`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
});
after(() => {
  process.kill(-server.pid!, 'SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
});

test('create-business prints businessId, userId and an API key that works at once against the running server', async () => {
  const created = await admin('create-business', '--name', 'Cafe Noa', '--email', 'Noa@Example.com');
  assert.deepEqual(Object.keys(created).sort(), ['apiKey', 'businessId', 'userId']);
  const me = await post(origin, '/v1/whoami', {}, created.apiKey);
  assert.equal(me.status, 200);
  assert.deepEqual(me.body.result, { businessId: created.businessId, businessName: 'Cafe Noa', userId: created.userId, email: 'noa@example.com', keyName: 'admin-cli', role: 'admin' });
});

test('create-key, accept-invite and revoke-key work against the same data', async () => {
  const owner = await admin('create-business', '--name', 'Bakery', '--email', 'boss@example.com');
  const invite = await post(origin, '/v1/inviteMember', { email: 'helper@example.com', role: 'user' }, owner.apiKey);
  assert.equal(invite.status, 200);
  const member = await admin('accept-invite', '--invite', invite.body.result.inviteId, '--email', 'helper@example.com');
  assert.equal(member.email, 'helper@example.com');
  assert.equal(member.role, 'user');
  const key = await admin('create-key', '--business', owner.businessId, '--email', 'helper@example.com', '--name', 'helper script');
  assert.match(key.apiKey, /^bfo_/);
  const me = await post(origin, '/v1/whoami', {}, key.apiKey);
  assert.equal(me.body.result.keyName, 'helper script');
  assert.equal(me.body.result.role, 'user');
  const revoked = await admin('revoke-key', '--key', key.apiKey);
  assert.equal(revoked.revoked, true);
  assert.equal((await post(origin, '/v1/whoami', {}, key.apiKey)).status, 401);
});

test('create-key for someone who is not a member fails without printing a key', async () => {
  const owner = await admin('create-business', '--name', 'Shop', '--email', 'shop@example.com');
  await assert.rejects(run('npm', ['run', '--silent', 'admin', '--', 'create-key', '--business', owner.businessId, '--email', 'stranger@example.com', '--name', 'k'], { env }), (e: any) => {
    assert.equal(e.stdout, '');
    assert.match(e.stderr, /not-found/);
    return true;
  });
});

test('without DATA_DIR the CLI finds the running server of the checkout, says so, and its key works there', async () => {
  const { DATA_DIR: _, ...noDataDir } = env;
  const { stdout, stderr } = await run('npm', ['run', '--silent', 'admin', '--', 'create-business', '--name', 'Elsewhere', '--email', 'else@example.com'], { env: noDataDir });
  const created = JSON.parse(stdout);
  assert.match(stderr, new RegExp(`used the SQLite store in ${dataDir.replaceAll('/', '\\/')}, the store of the running npm start \\(pid \\d+, http://127\\.0\\.0\\.1:${port}\\)`));
  assert.equal((await post(origin, '/v1/whoami', {}, created.apiKey)).status, 200);
});

test('with no server running and no DATA_DIR, the CLI says which store it wrote to and that a server elsewhere will not see it', async () => {
  const lonely = mkdtempSync(join(tmpdir(), 'bfo-admin-lonely-'));
  try {
    const { DATA_DIR: _, ...rest } = env;
    const node = join(process.cwd(), 'node_modules/.bin/node');
    const { stdout, stderr } = await run(node, [join(process.cwd(), 'functions/src/admin.ts'), 'create-business', '--name', 'Alone', '--email', 'alone@example.com'], { env: { ...rest, BFO_RUN_DIR: lonely }, cwd: lonely });
    assert.match(JSON.parse(stdout).apiKey, /^bfo_/);
    assert.match(stderr, /no running npm start or npm run emulators of this checkout found; used the SQLite store in \.data\. A server started with another DATA_DIR will not see this: set DATA_DIR to the server's\./);
    // That key is not the running server's: exactly the confusion the message warns about.
    assert.equal((await post(origin, '/v1/whoami', {}, JSON.parse(stdout).apiKey)).status, 401);
  } finally {
    rmSync(lonely, { recursive: true, force: true });
  }
});

test("DATA_DIR naming the running service's own folder still takes the service's whole store (npm run emulators keeps its records in Firestore); another DATA_DIR wins, and the CLI says the service may use another store", async () => {
  const runHere = mkdtempSync(join(tmpdir(), 'bfo-admin-record-'));
  const emulatorData = join(runHere, 'data');
  try {
    // The record npm run emulators leaves (scripts/emulators.sh), for a live pid (this test's), on SQLite so that no emulator is needed.
    writeFileSync(join(runHere, '.bfo-run.json'), JSON.stringify({ kind: 'emulators', pid: process.pid, storeEnv: { DATA_DIR: emulatorData, STORE: 'sqlite' }, url: 'http://127.0.0.1:5302' }));
    const { PORT: _p, ...base } = env;
    const same = await run('npm', ['run', '--silent', 'admin', '--', 'create-business', '--name', 'Same', '--email', 'same@example.com'], { env: { ...base, DATA_DIR: `${emulatorData}/`, BFO_RUN_DIR: runHere } });
    assert.match(same.stderr, new RegExp(`used the SQLite store in ${emulatorData.replaceAll('/', '\\/')}, the store of the running npm run emulators \\(pid ${process.pid}, http://127\\.0\\.0\\.1:5302\\)`));
    const other = await run('npm', ['run', '--silent', 'admin', '--', 'create-business', '--name', 'Other', '--email', 'other@example.com'], { env: { ...base, DATA_DIR: dataDir, BFO_RUN_DIR: runHere } });
    assert.match(other.stderr, /as the environment says; the running npm run emulators \(pid \d+, http:\/\/127\.0\.0\.1:5302\) may use another store/);
    assert.equal((await post(origin, '/v1/whoami', {}, JSON.parse(other.stdout).apiKey)).status, 200, 'DATA_DIR named the npm start store, and the key works there');
  } finally {
    rmSync(runHere, { recursive: true, force: true });
  }
});

test("run-job runs a scheduled function's work once against the running server's store", async () => {
  const { DATA_DIR: _, ...noDataDir } = env;
  const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', 'run-job', 'outbox-sweep'], { env: noDataDir });
  assert.deepEqual(JSON.parse(stdout), { job: 'outbox-sweep', requeued: 0 });
  const polls = JSON.parse((await run('npm', ['run', '--silent', 'admin', '--', 'run-job', 'mailbox-polls'], { env: noDataDir })).stdout);
  assert.deepEqual(polls, { job: 'mailbox-polls', automations: 0 });
  await assert.rejects(run('npm', ['run', '--silent', 'admin', '--', 'run-job', 'nightly'], { env: noDataDir }), (e: any) => {
    assert.equal(e.stdout, '');
    assert.match(e.stderr, /run-job: expected one of outbox-sweep, statements-monthly, mailbox-polls/);
    return true;
  });
});
