import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeIta, FAKE_CLIENT, type FakeIta } from './ita.ts';

// The fake takes the client the way the ITA's official sample sends it (github.com/ISRTaxesOpenAPI/nodeJSExample):
// HTTP Basic for the code exchange (getToken.js), the body for a refresh (createRequestForRefreshToken.js).

let ita: FakeIta;
before(async () => {
  ita = await startFakeIta(FAKE_CLIENT);
});
after(() => ita.close());

const basic = `Basic ${Buffer.from(`${FAKE_CLIENT.clientId}:${FAKE_CLIENT.clientSecret}`).toString('base64')}`;
const token = async (form: Record<string, string>, headers: Record<string, string> = {}) => {
  const res = await fetch(`${ita.authUrl}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() });
  return { status: res.status, body: (await res.json()) as any };
};
async function code(): Promise<string> {
  const q = new URLSearchParams({ response_type: 'code', client_id: FAKE_CLIENT.clientId, redirect_uri: 'https://app.example.com/cb', scope: 'scope', state: 's' });
  const r = await fetch(`${ita.authUrl}/authorize?${q}`, { redirect: 'manual' });
  return new URL(r.headers.get('location')!).searchParams.get('code')!;
}

test('the code exchange wants HTTP Basic: the client in the body is invalid_client; both at once is refused', async () => {
  const c = await code();
  const inBody = await token({ grant_type: 'authorization_code', code: c, redirect_uri: 'https://app.example.com/cb', scope: 'scope', client_id: FAKE_CLIENT.clientId, client_secret: FAKE_CLIENT.clientSecret });
  assert.deepEqual([inBody.status, inBody.body.error], [401, 'invalid_client']);
  const both = await token({ grant_type: 'authorization_code', code: c, redirect_uri: 'https://app.example.com/cb', scope: 'scope', client_secret: FAKE_CLIENT.clientSecret }, { authorization: basic });
  assert.equal(both.status, 400);
  const ok = await token({ grant_type: 'authorization_code', code: c, redirect_uri: 'https://app.example.com/cb', scope: 'scope' }, { authorization: basic });
  assert.equal(ok.status, 200);

  // A refresh sends the client in the body, as the sample does.
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: ok.body.refresh_token, scope: 'scope', client_id: FAKE_CLIENT.clientId, client_secret: FAKE_CLIENT.clientSecret });
  assert.equal(refreshed.status, 200);
  const wrong = await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, scope: 'scope', client_id: FAKE_CLIENT.clientId, client_secret: 'nope' });
  assert.deepEqual([wrong.status, wrong.body.error], [401, 'invalid_client']);
});

test('invoice-information/v1/details wants a live Bearer token and a JSON body with its required numbers', async () => {
  const post = async (body: unknown, auth?: string) => (await fetch(`${ita.baseUrl}/invoice-information/v1/details`, { method: 'POST', headers: { 'content-type': 'application/json', ...(auth && { authorization: auth }) }, body: JSON.stringify(body) })).status;
  assert.equal(await post({ Customer_VAT_Number: 123456789, Confirmation_Number: '1' }), 401);
  const c = await code();
  const { body } = await token({ grant_type: 'authorization_code', code: c, redirect_uri: 'https://app.example.com/cb', scope: 'scope' }, { authorization: basic });
  assert.equal(await post({ Customer_VAT_Number: '123456789', Confirmation_Number: '1' }, `Bearer ${body.access_token}`), 422);
  assert.equal(await post({ Customer_VAT_Number: 123456789, Confirmation_Number: '1' }, `Bearer ${body.access_token}`), 404);
});
