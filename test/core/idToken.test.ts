import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../harness.ts';

let h: Harness;
let origin = '';
before(async () => {
  h = await createHarness();
  origin = await h.listen();
});
after(() => h.close());

const call = (token: string) => fetch(`${origin}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

test('a JWT-shaped token that firebase-admin cannot verify is a 401, never a 5xx', async () => {
  const jwt = `${Buffer.from('{"alg":"RS256","kid":"x"}').toString('base64url')}.${Buffer.from('{"sub":"u"}').toString('base64url')}.c2ln`;
  const res = await call(jwt);
  assert.equal(res.status, 401, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'unauthenticated');
});

test('tokens of neither form are refused as invalid API keys; API keys keep working', async () => {
  for (const bad of ['bfo_short', 'a.b', 'a.b.c.d', 'not-a-token']) {
    const res = await call(bad);
    assert.equal(res.status, 401, bad);
    assert.equal(res.body.error.message, 'invalid API key');
  }
  assert.equal((await call(h.owner.apiKey!)).status, 200);
});
