import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mercuryStatementId, mercuryUuid, startFakeMercury, type FakeMercury } from './mercury.ts';

// The fake refuses what Mercury's reference says Mercury refuses (docs.mercury.com/reference/getaccountstatements,
// docs.mercury.com/changelog/account-statements). The first test is the request the old adapter sent (A1 of issue 18).

let mercury: FakeMercury;
const TOKEN = 'secret-token:mercury_production_fake';
const ACC = mercuryUuid('checking');

before(async () => {
  mercury = await startFakeMercury();
  mercury.tokens.add(TOKEN);
  mercury.today = '2025-06-15';
  mercury.accounts.push({ id: ACC, name: 'Checking', status: 'active', kind: 'checking' });
  mercury.statements.set(ACC, new Map(['2025-01', '2025-02', '2025-03', '2025-04', '2025-05'].map((m) => [m, Buffer.from(`%PDF-1.4 ${m}`)])));
});
after(() => mercury.close());

const get = async (path: string, token = TOKEN) => {
  const res = await fetch(`${mercury.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, body: type.includes('json') ? ((await res.json()) as any) : Buffer.from(await res.arrayBuffer()) };
};
const statements = (q: string) => get(`/account/${ACC}/statements?${q}`);

test('24 months in one statements request is refused with 400, as Mercury does (what broke every connect)', async () => {
  const r = await statements('start=2023-06-01&end=2025-06-01');
  assert.equal(r.status, 400);
  assert.match(r.body.errors.message, /cannot exceed 3 months/);
  // Three months is the most: a day more is refused, three calendar months are accepted.
  assert.equal((await statements('start=2025-01-01&end=2025-04-02')).status, 400);
  const ok = await statements('start=2025-01-01&end=2025-03-31');
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body.statements.map((s: any) => s.startDate), ['2025-03-01T00:00:00Z', '2025-02-01T00:00:00Z', '2025-01-01T00:00:00Z']);
});

test('dates are YYYY-MM-DD on the period start, both ends inclusive; statements carry uuids and UTCTime', async () => {
  assert.equal((await statements('start=2025-1-1&end=2025-02-01')).status, 400);
  assert.equal((await statements('start=2025-03-01T00:00:00Z&end=2025-04-01')).status, 400);
  assert.equal((await statements('start=2025-04-01&end=2025-03-01')).status, 400);
  const one = await statements('start=2025-02-01&end=2025-02-01');
  assert.equal(one.body.statements.length, 1);
  const s = one.body.statements[0];
  assert.match(s.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(s.startDate, /^\d{4}-\d{2}-\d{2}T00:00:00Z$/);
  assert.equal(typeof s.downloadUrl, 'string');
});

test('missing dates default as the changelog says: three months ending today, or three months from the one given', async () => {
  assert.deepEqual((await statements('')).body.statements.map((s: any) => s.startDate.slice(0, 7)), ['2025-05', '2025-04']);
  assert.deepEqual((await statements('start=2025-01-01')).body.statements.map((s: any) => s.startDate.slice(0, 7)), ['2025-04', '2025-03', '2025-02', '2025-01']);
});

test('unknown parameters, bad ids, bad paging and a wrong token are refused', async () => {
  assert.equal((await statements('from=2025-01-01')).status, 400);
  assert.equal((await get('/account/acc-1/statements')).status, 400);
  assert.equal((await get(`/account/${mercuryUuid('nobody')}/statements`)).status, 404);
  assert.equal((await statements('limit=0')).status, 400);
  assert.equal((await statements('limit=1001')).status, 400);
  assert.equal((await statements(`start_after=${ACC}&end_before=${ACC}`)).status, 400);
  assert.equal((await statements('order=newest')).status, 400);
  assert.equal((await get('/statements/st_1/pdf')).status, 400);
  assert.equal((await get('/accounts', 'wrong')).status, 401);
});

test('cursor paging: page.nextPage leads through every statement once', async () => {
  mercury.pageCap = 2;
  try {
    const seen: string[] = [];
    let after = '';
    for (let i = 0; i < 10; i++) {
      const r = await statements(`start=2025-03-01&end=2025-05-31&order=asc${after ? `&start_after=${after}` : ''}`);
      assert.equal(r.status, 200);
      seen.push(...r.body.statements.map((s: any) => s.startDate.slice(0, 7)));
      after = r.body.page.nextPage ?? '';
      if (!after) break;
    }
    assert.deepEqual(seen, ['2025-03', '2025-04', '2025-05']);
  } finally {
    mercury.pageCap = 1000;
  }
});

test('the statement PDF is served by its uuid', async () => {
  const r = await get(`/statements/${mercuryStatementId(ACC, '2025-02')}/pdf`);
  assert.equal(r.status, 200);
  assert.equal(r.body.toString(), '%PDF-1.4 2025-02');
});
