import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createHarness, type Harness } from '../harness.ts';
import { startSmtp, mailText } from '../fakes/smtp.ts';

/**
 * Dashboard sign-in: boots only the Firebase Auth emulator, makes users through its REST API and calls
 * the API over HTTP with their ID tokens (firebase-admin verifies them against the emulator).
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIREBASE = join(ROOT, 'node_modules/firebase-tools/lib/bin/firebase.js');
const PROJECT = 'demo-bfo';
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

const sleep = (ms: number, unref = false) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (unref) timer.unref();
  });

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

const skip = await firebaseUnavailable();

describe('dashboard sign-in with Firebase Auth ID tokens (Auth emulator)', { skip }, () => {
  let work = '';
  let emulator: ChildProcess | undefined;
  let exited: Promise<unknown> | undefined;
  let log = '';
  let authHost = '';
  let h: Harness;
  let origin = '';
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const saved = { host: process.env.FIREBASE_AUTH_EMULATOR_HOST, project: process.env.GCLOUD_PROJECT };

  const tail = () => `\n--- emulator output (tail) ---\n${log.slice(-3000)}`;
  const identity = (path: string) => `http://${authHost}/identitytoolkit.googleapis.com/v1/${path}`;

  async function rest(path: string, body: unknown, admin = false) {
    const res = await fetch(identity(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(admin ? { authorization: 'Bearer owner' } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(json)}`);
    return json;
  }

  /** A Firebase user; `verified` sets emailVerified through the emulator's admin update. Returns a fresh ID token. */
  const password = 'correct horse battery staple';
  async function firebaseUser(email: string, verified: boolean): Promise<{ uid: string; idToken: string }> {
    const signUp = await rest('accounts:signUp?key=fake-api-key', { email, password, returnSecureToken: true });
    if (verified) return verify(signUp.localId, email);
    return { uid: signUp.localId, idToken: signUp.idToken };
  }
  /** Marks the email verified and signs in again, so the new ID token carries email_verified. */
  async function verify(uid: string, email: string) {
    await rest(`projects/${PROJECT}/accounts:update`, { localId: uid, emailVerified: true }, true);
    const signIn = await rest('accounts:signInWithPassword?key=fake-api-key', { email, password, returnSecureToken: true });
    return { uid, idToken: signIn.idToken };
  }

  async function api(path: string, token: string, opts: { body?: unknown; businessId?: string } = {}) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (opts.businessId) headers['x-business-id'] = opts.businessId;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(origin + path, { method: opts.body === undefined ? 'GET' : 'POST', headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** Adds a member with this email to a business, as accepting an invite would have. */
  async function addMember(businessId: string, userId: string, email: string, role: 'admin' | 'user') {
    const { store, clock } = h.app.services;
    const at = new Date(clock.now()).toISOString();
    if (!(await store.get(`users/${userId}`))) await store.set(`users/${userId}`, { userId, email, emailVerified: true, createdAt: at });
    await store.set(`businesses/${businessId}/members/${userId}`, { userId, email, role, joinedAt: at });
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'bfo-auth-emulator-'));
    const [auth, hub] = await Promise.all([freePort(), freePort()]);
    // A throwaway project dir with free ports, so parallel runs do not collide with each other or `npm run emulators`.
    const at = (port: number) => ({ host: '127.0.0.1', port });
    writeFileSync(join(work, 'firebase.json'), JSON.stringify({ emulators: { auth: at(auth), hub: at(hub), ui: { enabled: false }, logging: at(await freePort()) } }, null, 2));
    emulator = spawn(process.execPath, [FIREBASE, 'emulators:start', '--only', 'auth', '--project', PROJECT], {
      cwd: work,
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      detached: true, // its own process group: after() ends the CLI and anything it started
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    emulator.stdout!.on('data', (c) => (log += c));
    emulator.stderr!.on('data', (c) => (log += c));
    exited = new Promise((resolve) => emulator!.once('exit', resolve));
    let gone = false;
    void exited.then(() => (gone = true));
    const started = Date.now();
    while (!log.includes('All emulators ready')) {
      if (gone) throw new Error(`the auth emulator exited before it was ready${tail()}`);
      if (Date.now() - started > BOOT_TIMEOUT_MS) throw new Error(`the auth emulator was not ready after ${BOOT_TIMEOUT_MS} ms${tail()}`);
      await sleep(100);
    }
    authHost = `127.0.0.1:${auth}`;
    // firebase-admin reads these when it first loads, which is at the first ID token.
    process.env.FIREBASE_AUTH_EMULATOR_HOST = authHost;
    process.env.GCLOUD_PROJECT = PROJECT;
    smtp = await startSmtp();
    h = await createHarness({ env: { SMTP_URL: smtp.url } });
    origin = await h.listen();
  });

  after(async () => {
    await h?.close();
    await smtp?.close();
    if (emulator?.pid && emulator.exitCode === null && emulator.signalCode === null) {
      try {
        process.kill(-emulator.pid, 'SIGINT');
      } catch {}
      await Promise.race([exited, sleep(15_000, true)]);
    }
    if (emulator?.pid) {
      try {
        process.kill(-emulator.pid, 'SIGKILL');
      } catch {}
    }
    for (const [k, v] of [['FIREBASE_AUTH_EMULATOR_HOST', saved.host], ['GCLOUD_PROJECT', saved.project]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('a member signed in with a verified email calls the API with the ID token; API keys still work', async () => {
    const { idToken, uid } = await firebaseUser(h.owner.email, true);
    const me = await api('/v1/whoami', idToken);
    assert.equal(me.status, 200, JSON.stringify(me.body) + tail());
    assert.equal(me.body.result.businessId, h.owner.businessId);
    assert.equal(me.body.result.userId, h.owner.userId);
    assert.equal(me.body.result.role, 'admin');
    assert.equal(me.body.result.keyName, 'dashboard');
    // First seen by verified email; from now on matched by uid.
    assert.equal((await h.app.services.store.get(`users/${h.owner.userId}`))!.data.firebaseUid, uid);

    const byKey = await api('/v1/whoami', h.owner.apiKey!);
    assert.equal(byKey.status, 200);
    assert.equal(byKey.body.result.keyName, 'test key');

    // Business data reads with the token, as the member.
    const team = await api('/v1/listTeam', idToken);
    assert.equal(team.status, 200, JSON.stringify(team.body));
    assert.ok(team.body.result.members.some((m: { email: string; isYou: boolean }) => m.email === h.owner.email && m.isYou));
  });

  test('a member of two businesses must name one with X-Business-Id; another business answers 403', async () => {
    const email = 'two-hats@example.com';
    const first = await h.newBusiness('Alpha Secret Name Ltd');
    const second = await h.newBusiness('Beta Secret Name Ltd');
    const third = await h.newBusiness('Gamma Ltd');
    await addMember(first.businessId, 'u-two-hats', email, 'user');
    await addMember(second.businessId, 'u-two-hats', email, 'admin');
    const { idToken } = await firebaseUser(email, true);

    const ambiguous = await api('/v1/whoami', idToken);
    assert.equal(ambiguous.status, 400);
    assert.equal(ambiguous.body.error.code, 'invalid-argument');
    assert.match(ambiguous.body.error.message, /^X-Business-Id/);
    assert.doesNotMatch(ambiguous.body.error.message, /Alpha|Beta|Secret/);

    const inFirst = await api('/v1/whoami', idToken, { businessId: first.businessId });
    assert.equal(inFirst.status, 200);
    assert.equal(inFirst.body.result.businessName, 'Alpha Secret Name Ltd');
    assert.equal(inFirst.body.result.role, 'user');
    const inSecond = await api('/v1/whoami', idToken, { businessId: second.businessId });
    assert.equal(inSecond.body.result.role, 'admin');

    // MCP takes the token and the header too.
    const mcp = async (businessId?: string) => {
      const res = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${idToken}`, ...(businessId ? { 'x-business-id': businessId } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
      return { status: res.status, text: await res.text() };
    };
    const viaMcp = await mcp(second.businessId);
    assert.equal(viaMcp.status, 200, viaMcp.text);
    assert.match(viaMcp.text, new RegExp(`"businessId":\\s*\\\\?"${second.businessId}`));
    const mcpAmbiguous = await mcp();
    assert.equal(mcpAmbiguous.status, 400, mcpAmbiguous.text);
    assert.match(mcpAmbiguous.text, /X-Business-Id/);

    const foreign = await api('/v1/whoami', idToken, { businessId: third.businessId });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error.code, 'permission-denied');
    assert.doesNotMatch(JSON.stringify(foreign.body), /Gamma/);
    // The other business's data stays out of reach with a token too.
    const team = await api('/v1/listTeam', idToken, { businessId: third.businessId });
    assert.equal(team.status, 403);
  });

  test('a signed-in user who belongs to no business gets 403', async () => {
    const { idToken } = await firebaseUser('stranger@example.com', true);
    const res = await api('/v1/whoami', idToken);
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'permission-denied');
  });

  test('an unverified email, a forged token and an expired token get 401', async () => {
    const unverified = await firebaseUser('unverified@example.com', false);
    await addMember(h.owner.businessId, 'u-unverified', 'unverified@example.com', 'admin');
    const res = await api('/v1/whoami', unverified.idToken);
    assert.equal(res.status, 401);
    assert.match(res.body.error.message, /verified email/);

    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: `https://securetoken.google.com/${PROJECT}`, aud: PROJECT, sub: 'forged-uid', user_id: 'forged-uid', email: h.owner.email, email_verified: true, auth_time: now - 60, iat: now - 60, exp: now + 3600 };
    const token = (payload: object) => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`;
    for (const [what, bad] of [
      ['another project', token({ ...claims, aud: 'someone-else', iss: 'https://securetoken.google.com/someone-else' })],
      ['expired', token({ ...claims, iat: now - 7200, auth_time: now - 7200, exp: now - 3600 })],
      ['garbage', 'aaaa.bbbb.cccc'],
    ] as const) {
      const r = await api('/v1/whoami', bad);
      assert.equal(r.status, 401, `${what}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'unauthenticated');
    }
    // Nothing was bound to the forged uid.
    assert.notEqual((await h.app.services.store.get(`users/${h.owner.userId}`))!.data.firebaseUid, 'forged-uid');
  });

  test('acceptInvite: the invited, signed-in user joins with the invite\'s role; others cannot use the link', async () => {
    const invitee = 'newhire@example.com';
    const invite = await api('/v1/inviteMember', h.owner.apiKey!, { body: { email: invitee, role: 'user' } });
    assert.equal(invite.status, 200, JSON.stringify(invite.body));
    await h.app.queue!.drain();
    const mail = (await smtp.waitFor(1)).find((m) => /\/invite\/[A-Za-z0-9_-]{43}/.test(mailText(m.raw)))!;
    const link = /\/invite\/([A-Za-z0-9_-]{43})/.exec(mailText(mail.raw))![1];

    // An API key cannot accept; someone else's verified account cannot; an unverified one is 401.
    const byKey = await api('/v1/acceptInvite', h.owner.apiKey!, { body: { token: link } });
    assert.equal(byKey.status, 403);
    const other = await firebaseUser('not-invited@example.com', true);
    const wrong = await api('/v1/acceptInvite', other.idToken, { body: { token: link } });
    assert.equal(wrong.status, 403, JSON.stringify(wrong.body));
    // The invitee's own account, before its email is verified.
    const unverified = await firebaseUser(invitee, false);
    assert.equal((await api('/v1/acceptInvite', unverified.idToken, { body: { token: link } })).status, 401);
    const bogus = await api('/v1/acceptInvite', other.idToken, { body: { token: 'A'.repeat(43) } });
    assert.equal(bogus.status, 404);

    const { idToken, uid } = await verify(unverified.uid, invitee);
    assert.equal((await api('/v1/whoami', idToken)).status, 403, 'not a member before accepting');
    const joined = await api('/v1/acceptInvite', idToken, { body: { token: link } });
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    assert.equal(joined.body.result.businessId, h.owner.businessId);
    assert.equal(joined.body.result.role, 'user');

    const me = await api('/v1/whoami', idToken);
    assert.equal(me.status, 200);
    assert.equal(me.body.result.businessId, h.owner.businessId);
    assert.equal(me.body.result.role, 'user');
    assert.equal((await h.app.services.store.get(`users/${joined.body.result.userId}`))!.data.firebaseUid, uid);

    // The link is spent; the team and its activity show the new member.
    const again = await api('/v1/acceptInvite', idToken, { body: { token: link } });
    assert.equal(again.status, 400, JSON.stringify(again.body));
    assert.equal(again.body.error.code, 'failed-precondition');
    const team = await api('/v1/listTeam', h.owner.apiKey!);
    assert.ok(team.body.result.members.some((m: { email: string; role: string }) => m.email === invitee && m.role === 'user'));
  });
});
