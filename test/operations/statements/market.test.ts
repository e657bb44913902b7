import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { startFakeUpwork, upworkEnv, approveMarketConsent, FAKE_UPWORK_CLIENT, type FakeUpwork } from '../../fakes/upwork.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';
import { oauthStatePath } from '../../../functions/src/domain/oauthState.ts';
import { connectionsPath } from '../../../functions/src/domain/statements/statements.ts';
import { unseal } from '../../../functions/src/core/secrets.ts';

let h: Harness;
let upwork: FakeUpwork;
const last = addMonths(currentMonth(Date.now()), -1);
const prev = addMonths(last, -1);

before(async () => {
  upwork = await startFakeUpwork();
  upwork.organizations.push({ id: 'org-acme', title: 'Acme Ltd', aceId: 'ace-1' }, { id: 'org-beta', title: 'Beta Studio', aceId: 'ace-2' });
  upwork.transactions.set('org-acme', [
    { recordId: 'r1', date: `${last}-03`, type: 'Payment', subtype: 'Hourly', description: 'Invoice for Dana, week 1', amount: '-250.00', freelancer: 'Dana Levi' },
    { recordId: 'r2', date: `${last}-17`, type: 'Service Fee', description: '=HYPERLINK("x")', amount: '-12.50' },
    { recordId: 'r0', date: `${prev}-28`, type: 'Payment', description: 'previous month', amount: '-99.00' },
  ]);
  h = await createHarness({ env: upworkEnv(upwork) });
});
after(async () => {
  await h.close();
  await upwork.close();
});

function dataDirBytes(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? dataDirBytes(p) : readFileSync(p).toString('latin1');
  }
  return out;
}

/** Fetches a capability link through the service's own HTTP handler. */
async function download(url: string): Promise<{ status: number; type: string; text: string }> {
  const res = await h.http({ method: 'GET', path: new URL(url).pathname, query: '', headers: {}, body: undefined });
  const chunks: Buffer[] = [];
  if (res.body instanceof Readable) for await (const c of res.body) chunks.push(Buffer.from(c));
  else chunks.push(Buffer.from(res.body as string | Buffer));
  return { status: res.status, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') };
}

async function connect(user?: TestUser) {
  const { url } = await h.call('marketConnectStart', { origin: 'https://app.example.com' }, user);
  const r = await approveMarketConsent(h.http, url);
  assert.equal(r.res.status, 200, r.body);
  return (await h.call('marketListAccounts', {}, user)).accounts;
}

const sealedOf = async (businessId: string, connectionId: string) =>
  unseal(String((await h.app.services.store.get(connectionsPath(businessId, connectionId)))!.data.sealed), h.app.services.config.credentialsKey);

async function connectionIdOf(businessId: string, accountId: string) {
  return String((await h.app.services.store.get(`businesses/${businessId}/statementAccounts/${accountId}`))!.data.connectionId);
}

test('without MARKET_CLIENT_ID: marketConnectStart is refused naming the variables, marketListAccounts says configured false', async () => {
  const bare = await createHarness();
  try {
    await assert.rejects(bare.call('marketConnectStart', {}), (e: any) => e.code === 'failed-precondition' && /MARKET_CLIENT_ID/.test(e.message) && /MARKET_CLIENT_SECRET/.test(e.message));
    assert.deepEqual(await bare.call('marketListAccounts'), { configured: false, accounts: [] });
  } finally {
    await bare.close();
  }
});

test('consent URL: the authorize endpoint with our client, response_type code, our return page and a stored single-use state', async () => {
  const r = await h.call('marketConnectStart', { origin: 'https://app.example.com/some/page' });
  const url = new URL(r.url);
  assert.equal(url.origin + url.pathname, upwork.authUrl);
  assert.equal(url.searchParams.get('client_id'), FAKE_UPWORK_CLIENT.clientId);
  assert.equal(url.searchParams.get('response_type'), 'code');
  assert.match(url.searchParams.get('redirect_uri')!, /\/oauth\/market\/callback$/);
  const stored = await h.app.services.store.get(oauthStatePath(url.searchParams.get('state')!));
  assert.equal(stored!.data.provider, 'market');
  assert.equal(stored!.data.businessId, h.owner.businessId);
  assert.deepEqual(stored!.data.extra, { origin: 'https://app.example.com' });
  assert.ok(!r.url.includes(FAKE_UPWORK_CLIENT.clientSecret));
  await assert.rejects(h.call('marketConnectStart', { origin: 'javascript:alert(1)' }), (e: any) => e.code === 'invalid-argument' && /^origin:/.test(e.message));
});

test('consent → return page → organizations become accounts, tokens stored only sealed; the return link works once', async () => {
  const { url } = await h.call('marketConnectStart', { origin: 'https://dash.example.com' });
  const { res, body, back } = await approveMarketConsent(h.http, url);
  assert.equal(res.status, 200);
  assert.match(body, /Upwork חובר/);
  assert.match(body, /Test Business is connected to Upwork \(2 organizations: Acme Ltd, Beta Studio\)/);
  assert.match(body, /href="https:\/\/dash\.example\.com\/statements"/);
  const exchange = upwork.requests.find((r) => r.form?.get('grant_type') === 'authorization_code')!;
  assert.equal(exchange.form!.get('code'), back.searchParams.get('code'));
  assert.equal(exchange.form!.get('redirect_uri'), `${h.config.oauthReturnBase}/oauth/market/callback`);

  const list = await h.call('marketListAccounts');
  assert.equal(list.configured, true);
  assert.deepEqual(list.accounts.map((a: any) => [a.name, a.source, a.status]), [['Acme Ltd', 'market', 'connected'], ['Beta Studio', 'market', 'connected']]);
  const access = upwork.accessTokens.at(-1)!;
  const refresh = upwork.refreshTokens.at(-1)!;
  const creds = await sealedOf(h.owner.businessId, await connectionIdOf(h.owner.businessId, list.accounts[0].id));
  assert.equal(creds.accessToken, access);
  assert.equal(creds.refreshToken, refresh);
  for (const secret of [access, refresh]) {
    assert.ok(!JSON.stringify(list).includes(secret));
    assert.ok(!body.includes(secret));
    assert.ok(!dataDirBytes(h.config.dataDir).includes(secret), 'no plain token in the local data');
  }
  // The organizations were listed with the new token.
  assert.equal(upwork.requests.find((r) => r.query?.includes('companySelector'))!.token, upwork.accessTokens[0]);

  // State reuse is refused and changes nothing.
  const again = await h.http({ method: 'GET', path: back.pathname, query: back.search.slice(1), headers: {}, body: undefined });
  assert.equal(again.status, 400);
  assert.match(String(again.body), /already used/);
  // An unknown state too.
  const forged = await h.http({ method: 'GET', path: '/oauth/market/callback', query: 'state=nope&code=x', headers: {}, body: undefined });
  assert.equal(forged.status, 400);
  assert.match(String(forged.body), /not recognised/);
  // Connecting again keeps the same two accounts (ids stable).
  const ids = list.accounts.map((a: any) => a.id);
  const reconnected = await connect();
  assert.deepEqual(reconnected.map((a: any) => a.id), ids);
});

test('a declined consent stores nothing and links back to the origin', async () => {
  const other = await h.newBusiness('Declined Co');
  const { url } = await h.call('marketConnectStart', { origin: 'https://x.example.com' }, other);
  upwork.declineNext = true;
  const { res, body } = await approveMarketConsent(h.http, url);
  assert.equal(res.status, 400);
  assert.match(body, /not granted/);
  assert.match(body, /href="https:\/\/x\.example\.com\/statements"/);
  assert.deepEqual((await h.call('marketListAccounts', {}, other)).accounts, []);
});

test('sync a month: transactions stored as rows and one CSV with a working link; marketTransactions; re-sync replaces', async () => {
  const acme = (await h.call('marketListAccounts')).accounts.find((a: any) => a.name === 'Acme Ltd');
  // Strict, closed month.
  await assert.rejects(h.call('marketSync', { accountId: acme.id, month: currentMonth(Date.now()) }), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message));
  await assert.rejects(h.call('marketSync', { accountId: acme.id, month: '2024-1' }), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message));
  await assert.rejects(h.call('marketTransactions', { accountId: acme.id, month: '2024-13' }), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message));
  assert.equal((await h.call('marketTransactions', { accountId: acme.id, month: last })).status, 'not_synced');

  const s = await h.call('marketSync', { accountId: acme.id, month: last });
  assert.equal(s.status, 'pending');
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements.find((x: any) => x.id === s.id);
  assert.equal(st.status, 'ready', st.reason);
  assert.equal(st.files.length, 1);
  assert.equal(st.files[0].contentType, 'text/csv');
  assert.match(st.files[0].fileName, new RegExp(`^upwork-Acme-Ltd-${last}\\.csv$`));
  const csv = await download(st.files[0].url);
  assert.equal(csv.status, 200);
  const lines = csv.text.replace(/^\uFEFF/, '').trim().split('\r\n');
  assert.equal(lines[0], 'מזהה / ID,תאריך / Date,סוג / Type,תת-סוג / Subtype,תיאור / Description,סכום / Amount,מטבע / Currency,יתרה / Balance,פרילנסר / Freelancer,סוכנות / Agency,חברה / Company,מספר חשבונית / Invoice ID,סטטוס / Status');
  assert.equal(lines.length, 3, 'the previous month is not included');
  assert.match(lines[1], new RegExp(`^r1,${last}-03,Payment,Hourly,"Invoice for Dana, week 1",-250.00,USD,`));
  assert.match(lines[2], /,"'=HYPERLINK\(""x""\)",-12.50,/, 'a formula-looking text is neutralised');

  // The transaction query went to the organization (tenant header) with its accounting entity and the month's range.
  const th = upwork.requests.findLast((r) => r.query?.includes('transactionHistory'))!;
  assert.equal(th.tenant, 'org-acme');
  assert.deepEqual(th.variables!.transactionHistoryFilter.aceIds_any, ['ace-1']);
  assert.equal(th.variables!.transactionHistoryFilter.transactionDateTime_bt.rangeStart, `${last}-01`);

  const tx = await h.call('marketTransactions', { accountId: acme.id, month: last });
  assert.equal(tx.status, 'ready');
  assert.equal(tx.accountName, 'Acme Ltd');
  assert.deepEqual(tx.transactions.map((t: any) => [t.id, t.date, t.amount, t.currency, t.description]), [
    ['r1', `${last}-03`, '-250.00', 'USD', 'Invoice for Dana, week 1'],
    ['r2', `${last}-17`, '-12.50', 'USD', '=HYPERLINK("x")'],
  ]);
  assert.equal(tx.transactions[0].freelancer, 'Dana Levi');

  // Re-sync after Upwork corrected the month: rows and the CSV are replaced, never duplicated; the old link is dead.
  upwork.transactions.get('org-acme')!.splice(1, 1, { recordId: 'r3', date: `${last}-20`, type: 'Refund', description: 'refund', amount: '40.00' });
  await h.call('marketSync', { accountId: acme.id, month: last });
  await h.app.queue!.drain();
  const tx2 = await h.call('marketTransactions', { accountId: acme.id, month: last });
  assert.deepEqual(tx2.transactions.map((t: any) => t.id), ['r1', 'r3']);
  const st2 = (await h.call('statementsList')).statements.filter((x: any) => x.accountId === acme.id);
  assert.equal(st2.length, 1);
  assert.equal(st2[0].files.length, 1);
  assert.match((await download(st2[0].files[0].url)).text, /refund/);
  assert.equal((await download(st.files[0].url)).status, 404);
  const rows = await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/statementRows`, where: [['statementId', '==', s.id]] });
  assert.equal(rows.length, 2, 'the previous sync\'s rows are deleted');
});

test('an expired access token is refreshed: the sync works and the new tokens are stored sealed', async () => {
  const beta = (await h.call('marketListAccounts')).accounts.find((a: any) => a.name === 'Beta Studio');
  upwork.transactions.set('org-beta', [{ recordId: 'b1', date: `${prev}-05`, type: 'Payment', description: 'design', amount: '-500.00' }]);
  const connId = await connectionIdOf(h.owner.businessId, beta.id);
  const before = await sealedOf(h.owner.businessId, connId);
  upwork.expireAccessTokens();
  await h.call('marketSync', { accountId: beta.id, month: prev });
  await h.app.queue!.drain();
  const tx = await h.call('marketTransactions', { accountId: beta.id, month: prev });
  assert.equal(tx.status, 'ready', tx.reason);
  assert.deepEqual(tx.transactions.map((t: any) => t.id), ['b1']);
  const refreshCall = upwork.requests.findLast((r) => r.form?.get('grant_type') === 'refresh_token')!;
  assert.equal(refreshCall.form!.get('refresh_token'), before.refreshToken);
  const after = await sealedOf(h.owner.businessId, connId);
  assert.equal(after.accessToken, upwork.accessTokens.at(-1));
  assert.equal(after.refreshToken, upwork.refreshTokens.at(-1));
  assert.notEqual(after.refreshToken, before.refreshToken);
  assert.ok(!dataDirBytes(h.config.dataDir).includes(after.refreshToken));
  // The renewed pair keeps working: a second sync needs no refresh.
  const refreshes = upwork.requests.filter((r) => r.form?.get('grant_type') === 'refresh_token').length;
  await h.call('marketSync', { accountId: beta.id, month: prev });
  await h.app.queue!.drain();
  assert.equal((await h.call('marketTransactions', { accountId: beta.id, month: prev })).status, 'ready');
  assert.equal(upwork.requests.filter((r) => r.form?.get('grant_type') === 'refresh_token').length, refreshes);
});

test('two organizations of one connection syncing at once with an expired token: one refresh wins, the other uses its tokens', async () => {
  const biz = await h.newBusiness('Parallel Co');
  const accounts = await connect(biz);
  upwork.expireAccessTokens();
  const refreshesBefore = upwork.requests.filter((r) => r.form?.get('grant_type') === 'refresh_token').length;
  for (const a of accounts) await h.call('marketSync', { accountId: a.id, month: last }, biz);
  await h.app.queue!.drain();
  for (const a of accounts) {
    const tx = await h.call('marketTransactions', { accountId: a.id, month: last }, biz);
    assert.equal(tx.status, 'ready', tx.reason);
  }
  assert.ok((await h.call('marketListAccounts', {}, biz)).accounts.every((a: any) => a.status === 'connected'));
  assert.ok(upwork.requests.filter((r) => r.form?.get('grant_type') === 'refresh_token').length > refreshesBefore);
  const creds = await sealedOf(biz.businessId, await connectionIdOf(biz.businessId, accounts[0].id));
  assert.equal(creds.refreshToken, upwork.refreshTokens.at(-1), 'the live refresh token is the stored one');
});

test('a 429 with Retry-After is retried within the sync', async () => {
  const acme = (await h.call('marketListAccounts')).accounts.find((a: any) => a.name === 'Acme Ltd');
  upwork.rateLimitNext(2, '0');
  await h.call('marketSync', { accountId: acme.id, month: prev });
  await h.app.queue!.drain();
  const tx = await h.call('marketTransactions', { accountId: acme.id, month: prev });
  assert.equal(tx.status, 'ready', tx.reason);
  assert.deepEqual(tx.transactions.map((t: any) => t.id), ['r0']);
});

test('another business cannot list, sync, read the transactions of, delete or download the statements', async () => {
  const b = await h.newBusiness('Other');
  const acme = (await h.call('marketListAccounts')).accounts.find((a: any) => a.name === 'Acme Ltd');
  const mine = (await h.call('statementsList')).statements.find((s: any) => s.accountId === acme.id && s.month === last);
  assert.deepEqual((await h.call('marketListAccounts', {}, b)).accounts, []);
  assert.deepEqual((await h.call('statementsList', {}, b)).statements, []);
  await assert.rejects(h.call('marketSync', { accountId: acme.id, month: last }, b), (e: any) => e.code === 'not-found' && /^accountId:/.test(e.message));
  await assert.rejects(h.call('marketTransactions', { accountId: acme.id, month: last }, b), (e: any) => e.code === 'not-found' && /^accountId:/.test(e.message));
  await assert.rejects(h.call('marketDisconnect', { accountId: acme.id }, b), (e: any) => e.code === 'not-found');
  await assert.rejects(h.call('statementDelete', { id: mine.id }, b), (e: any) => e.code === 'not-found');
  assert.equal(await h.app.services.files.read(b.businessId, mine.files[0].fileId), null);
  // The owner's data is untouched.
  assert.equal((await h.call('marketTransactions', { accountId: acme.id, month: last })).transactions.length, 2);
});

test('a revoked grant (invalid_grant on refresh) marks the accounts needs_reconnect; reconnecting restores them; disconnect forgets the tokens', async () => {
  const biz = await h.newBusiness('Revoked Co');
  const accounts = await connect(biz);
  const acme = accounts.find((a: any) => a.name === 'Acme Ltd');
  upwork.expireAccessTokens();
  upwork.revokeGrant();
  await h.call('marketSync', { accountId: acme.id, month: last }, biz);
  await h.app.queue!.drain();
  const tx = await h.call('marketTransactions', { accountId: acme.id, month: last }, biz);
  assert.equal(tx.status, 'failed');
  assert.match(tx.reason, /reconnect/);
  assert.match(tx.reason, /invalid_grant/);
  const list = await h.call('marketListAccounts', {}, biz);
  assert.ok(list.accounts.every((a: any) => a.status === 'needs_reconnect'));
  await assert.rejects(h.call('marketSync', { accountId: acme.id, month: last }, biz), (e: any) => e.code === 'failed-precondition');
  for (const t of [...upwork.accessTokens, ...upwork.refreshTokens]) assert.ok(!JSON.stringify(list).includes(t) && !tx.reason.includes(t));

  const again = await connect(biz);
  assert.ok(again.every((a: any) => a.status === 'connected'));
  assert.ok(again.some((a: any) => a.id === acme.id));

  // Disconnect: both organizations and the sealed tokens go; the synced statement stays readable.
  const connId = await connectionIdOf(biz.businessId, acme.id);
  const d = await h.call('marketDisconnect', { accountId: acme.id }, biz);
  assert.equal(d.removedAccountIds.length, 2);
  assert.deepEqual((await h.call('marketListAccounts', {}, biz)).accounts, []);
  assert.equal(await h.app.services.store.get(connectionsPath(biz.businessId, connId)), null);
  await assert.rejects(h.call('marketSync', { accountId: acme.id, month: last }, biz), (e: any) => e.code === 'not-found');
  assert.equal((await h.call('marketTransactions', { accountId: acme.id, month: last }, biz)).status, 'failed');
});

test('statementDelete removes the rows with the statement', async () => {
  const acme = (await h.call('marketListAccounts')).accounts.find((a: any) => a.name === 'Acme Ltd');
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === acme.id && s.month === last);
  await h.call('statementDelete', { id: st.id });
  const rows = await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/statementRows`, where: [['statementId', '==', st.id]] });
  assert.equal(rows.length, 0);
  assert.equal((await h.call('marketTransactions', { accountId: acme.id, month: last })).status, 'not_synced');
  assert.equal((await download(st.files[0].url)).status, 404);
});

test('an Upwork user without organizations gets a failure page and nothing is stored', async () => {
  const biz = await h.newBusiness('Empty Co');
  const saved = upwork.organizations.splice(0);
  try {
    const { url } = await h.call('marketConnectStart', { origin: 'https://app.example.com' }, biz);
    const { res, body } = await approveMarketConsent(h.http, url);
    assert.equal(res.status, 400);
    assert.match(body, /no organization to connect/);
    assert.deepEqual((await h.call('marketListAccounts', {}, biz)).accounts, []);
    assert.deepEqual(await h.app.services.store.query({ collection: connectionsPath(biz.businessId) }), []);
  } finally {
    upwork.organizations.push(...saved);
  }
});
