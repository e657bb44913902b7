import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness } from '../harness.ts';
import { emulatorTokensRefusal, isLoopbackHost } from '../../functions/src/core/idToken.ts';
import { freePort, ROOT } from '../dashboard/env.ts';
import { startFakeAuthEmulator } from '../fakes/firebaseAuthEmulator.ts';

/**
 * The Auth emulator's ID tokens are unsigned (alg "none"): anyone who reaches the API could forge one for
 * any email. They count only while the server listens on loopback alone.
 */
const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const forged = (email: string) =>
  [
    b64url({ alg: 'none', typ: 'JWT' }),
    b64url({ iss: 'https://securetoken.google.com/demo-bfo', aud: 'demo-bfo', sub: 'attacker', user_id: 'attacker', email, email_verified: true, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600, auth_time: Math.floor(Date.now() / 1000), firebase: { identities: {}, sign_in_provider: 'password' } }),
    '',
  ].join('.');

const saved = { host: process.env.FIREBASE_AUTH_EMULATOR_HOST, project: process.env.GCLOUD_PROJECT, kService: process.env.K_SERVICE, dataDir: process.env.DATA_DIR };
after(() => {
  for (const [k, v] of [['FIREBASE_AUTH_EMULATOR_HOST', saved.host], ['GCLOUD_PROJECT', saved.project], ['K_SERVICE', saved.kService], ['DATA_DIR', saved.dataDir]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test('loopback means 127.x, ::1 and localhost; the wildcard and real addresses are not', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '', undefined]) assert.equal(isLoopbackHost(h), false, String(h));
  assert.equal(emulatorTokensRefusal('0.0.0.0', {}), null, 'no emulator configured: nothing to refuse');
  assert.match(emulatorTokensRefusal('0.0.0.0', { FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099' })!, /not on loopback alone.*unsigned/);
});

test('on Cloud Functions (K_SERVICE or FUNCTION_TARGET) emulator tokens are refused whatever HOST says', async () => {
  for (const cf of [{ K_SERVICE: 'api' }, { FUNCTION_TARGET: 'api' }]) {
    assert.match(emulatorTokensRefusal('127.0.0.1', { FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099', ...cf })!, /set on Cloud Functions.*unsigned/);
    assert.equal(emulatorTokensRefusal('127.0.0.1', cf), null, 'no emulator configured: nothing to refuse');
  }
  // A loopback HOST (the default) and a token the emulator vouches for: accepted locally, refused under K_SERVICE.
  const auth = await startFakeAuthEmulator('demo-bfo', [{ localId: 'attacker', email: 'x@example.com', emailVerified: true }]);
  process.env.FIREBASE_AUTH_EMULATOR_HOST = auth.host;
  process.env.GCLOUD_PROJECT = 'demo-bfo';
  const h = await createHarness();
  try {
    const origin = await h.listen();
    const whoami = () => fetch(`${origin}/v1/whoami`, { headers: { authorization: `Bearer ${forged(h.owner.email)}` } });
    assert.equal((await whoami()).status, 200, 'the token is good enough for a local server on loopback');
    process.env.K_SERVICE = 'api';
    const res = await whoami();
    assert.equal(res.status, 401);
    assert.match(((await res.json()) as any).error.message, /accepted only while the server listens on loopback alone/);
  } finally {
    delete process.env.K_SERVICE;
    await h.close();
    await auth.close();
  }
});

test('the api Cloud Function does not start with FIREBASE_AUTH_EMULATOR_HOST set: 503, and the log says why', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bfo-cf-'));
  const { api } = await import('../../functions/src/index.ts');
  const logged: string[] = [];
  const error = console.error;
  console.error = (m: unknown) => void logged.push(String(m));
  Object.assign(process.env, { K_SERVICE: 'api', FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099', DATA_DIR: dataDir, GCLOUD_PROJECT: 'demo-bfo' });
  try {
    const out = await new Promise<{ status: number; body: string }>((resolve) => {
      let status = 0;
      const res = { writeHead: (s: number) => void (status = s), end: (b: unknown) => resolve({ status, body: String(b) }), on() {}, once() {}, setHeader() {}, getHeader() {} };
      void (api as unknown as (req: unknown, res: unknown) => unknown)({ method: 'GET', url: '/v1/whoami', headers: { authorization: `Bearer ${forged('x@example.com')}` }, get: () => undefined, header: () => undefined, on() {} }, res);
    });
    assert.equal(out.status, 503);
    assert.equal(JSON.parse(out.body).error.code, 'unavailable');
    assert.match(logged.join('\n'), /api failed to start.*FIREBASE_AUTH_EMULATOR_HOST is set on Cloud Functions/);
  } finally {
    console.error = error;
    delete process.env.K_SERVICE;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('npm start refuses to start when FIREBASE_AUTH_EMULATOR_HOST is set and it would listen beyond loopback', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bfo-host-'));
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'functions/src/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, HOST: '0.0.0.0', PORT: String(port), FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099', AUTH_EMULATOR: '', K_SERVICE: '', LOG_LEVEL: 'info', BFO_RUN_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  try {
    const code = await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(() => r('still running'), 60_000))]);
    assert.equal(code, 1, out);
    assert.match(out, /Auth emulator sign-in is refused: the server listens on 0\.0\.0\.0, not on loopback alone/);
    assert.doesNotMatch(out, /"listening"/);
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a forged unsigned token against a server listening beyond loopback gets 401, before any verification', async () => {
  process.env.FIREBASE_AUTH_EMULATOR_HOST = '127.0.0.1:9';
  process.env.GCLOUD_PROJECT = 'demo-bfo';
  const h = await createHarness({ env: { HOST: '0.0.0.0' } });
  try {
    const origin = await h.listen();
    const res = await fetch(`${origin}/v1/whoami`, { headers: { authorization: `Bearer ${forged(h.owner.email)}` } });
    const body = (await res.json()) as any;
    assert.equal(res.status, 401);
    assert.equal(body.error.code, 'unauthenticated');
    assert.match(body.error.message, /accepted only while the server listens on loopback alone/);
    // The same over MCP.
    const mcp = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${forged(h.owner.email)}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(mcp.status, 401);
    // An API key still works there.
    assert.equal((await fetch(`${origin}/v1/whoami`, { headers: { authorization: `Bearer ${h.owner.apiKey}` } })).status, 200);
  } finally {
    await h.close();
  }
});

test('npm start on a non-loopback HOST refuses emulator sign-in at start-up and says why', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bfo-host-'));
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'functions/src/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, HOST: '0.0.0.0', PORT: String(port), FIREBASE_AUTH_EMULATOR_HOST: '', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  try {
    const until = Date.now() + 60_000;
    while (!out.includes('"listening"') && Date.now() < until && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, /Auth emulator sign-in is refused: the server listens on 0\.0\.0\.0, not on loopback alone/);
    assert.doesNotMatch(out, /Auth emulator ready/);
    const init = (await fetch(`http://127.0.0.1:${port}/__/firebase/init.json`).then((r) => r.json())) as { unavailable?: string; authEmulator?: string };
    assert.equal(init.authEmulator, undefined);
    assert.match(init.unavailable ?? '', /unsigned/);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('an Auth emulator that lost its accounts (restarted without its export) gives the owner a new uid: the same verified email signs in again, to the same business (issue 35)', async () => {
  const token = (uid: string, email: string) => {
    const now = Math.floor(Date.now() / 1000);
    return [b64url({ alg: 'none', typ: 'JWT' }), b64url({ iss: 'https://securetoken.google.com/demo-bfo', aud: 'demo-bfo', sub: uid, user_id: uid, email, email_verified: true, iat: now, exp: now + 3600, auth_time: now, firebase: { identities: {}, sign_in_provider: 'emailLink' } }), ''].join('.');
  };
  const auth = await startFakeAuthEmulator('demo-bfo', [
    { localId: 'before-restart', email: 'x@example.com', emailVerified: true },
    { localId: 'after-restart', email: 'x@example.com', emailVerified: true },
  ]);
  process.env.FIREBASE_AUTH_EMULATOR_HOST = auth.host;
  process.env.GCLOUD_PROJECT = 'demo-bfo';
  // firebase-admin keeps the emulator host of its first use: a fresh app for this fake.
  const { deleteApp, getApps } = await import('firebase-admin/app');
  await Promise.all(getApps().map((a) => deleteApp(a)));
  const h = await createHarness();
  try {
    const origin = await h.listen();
    const whoami = async (uid: string) => {
      const res = await fetch(`${origin}/v1/whoami`, { headers: { authorization: `Bearer ${token(uid, h.owner.email)}` } });
      return { status: res.status, body: (await res.json()) as any };
    };
    assert.equal((await whoami('before-restart')).status, 200);
    const again = await whoami('after-restart');
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.result.businessId, h.owner.businessId);
    assert.equal(again.body.result.userId, h.owner.userId);
    assert.equal((await h.app.services.store.get(`users/${h.owner.userId}`))!.data.firebaseUid, 'after-restart');
  } finally {
    await h.close();
    await auth.close();
  }
});
