import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { post } from './http.ts';

/** `npm start` and the admin commands, as documented: separate processes on one DATA_DIR. */
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'bfo-admin-'));
const port = 20000 + Math.floor(Math.random() * 20000);
const origin = `http://127.0.0.1:${port}`;
const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
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
