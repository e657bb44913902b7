import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../harness.ts';
import { startFakeAuthEmulator } from '../fakes/firebaseAuthEmulator.ts';

/**
 * An admin-only operation refused to a `user` member says who is refused: a key "acts as a user", while someone
 * signed in to the dashboard (an ID token, no key at all) is told they are signed in as a user of this business.
 */
const saved = { host: process.env.FIREBASE_AUTH_EMULATOR_HOST, project: process.env.GCLOUD_PROJECT };
after(() => {
  for (const [k, v] of [['FIREBASE_AUTH_EMULATOR_HOST', saved.host], ['GCLOUD_PROJECT', saved.project]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

// The Auth emulator's tokens are unsigned (alg "none"); firebase-admin checks the claims and asks the emulator for the user.
const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const emulatorToken = (uid: string, email: string) => {
  const now = Math.floor(Date.now() / 1000);
  return [b64url({ alg: 'none', typ: 'JWT' }), b64url({ iss: 'https://securetoken.google.com/demo-bfo', aud: 'demo-bfo', sub: uid, user_id: uid, email, email_verified: true, iat: now, exp: now + 3600, auth_time: now, firebase: { identities: {}, sign_in_provider: 'password' } }), ''].join('.');
};

test('a user refused an admin-only operation: the ID-token caller is not told about a key, the key caller is', async () => {
  const h = await createHarness();
  const member = await h.addMember('user');
  const auth = await startFakeAuthEmulator('demo-bfo', [{ localId: 'member-uid', email: member.email, emailVerified: true }]);
  process.env.FIREBASE_AUTH_EMULATOR_HOST = auth.host;
  process.env.GCLOUD_PROJECT = 'demo-bfo';
  try {
    const origin = await h.listen();
    const post = async (op: string, body: unknown, bearer: string) => {
      const res = await fetch(`${origin}/v1/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const token = emulatorToken('member-uid', member.email);
    const me = await post('whoami', {}, token);
    assert.equal(me.body.result.role, 'user');

    const signedIn = await post('inviteMember', { email: 'x@example.com', role: 'user' }, token);
    assert.equal(signedIn.status, 403);
    assert.equal(signedIn.body.error.code, 'permission-denied');
    assert.match(signedIn.body.error.message, /^inviteMember requires the admin role; you are signed in as a user of this business/);
    assert.doesNotMatch(signedIn.body.error.message, /\bkey\b/i);

    const byKey = await post('removeMember', { email: h.owner.email }, member.apiKey);
    assert.equal(byKey.status, 403);
    assert.equal(byKey.body.error.code, 'permission-denied');
    assert.match(byKey.body.error.message, /^removeMember requires the admin role; this key acts as a user/);

    // Nothing happened: no invite, the owner is still a member.
    const team = await h.call('listTeam');
    assert.deepEqual(team.invites, []);
    assert.ok(team.members.some((m: any) => m.email === h.owner.email));
  } finally {
    await h.close();
    await auth.close();
  }
});
