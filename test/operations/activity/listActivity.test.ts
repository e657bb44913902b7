import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => {
  let t = Date.parse('2026-11-01T00:00:00Z');
  // A clock that ticks 1 s per reading keeps every row's `at` distinct and ordered.
  h = await createHarness({ overrides: { clock: { now: () => (t += 1000) } } });
});
after(() => h.close());

test('every mutating operation appends a row with actor, key, operation, targets and summary', async () => {
  await h.call('setBusinessApp', { app: 'software', enabled: false });
  const [row] = (await h.call('listActivity')).items;
  assert.equal(row.operation, 'setBusinessApp');
  assert.equal(row.actorUserId, h.owner.userId);
  assert.equal(row.actorEmail, h.owner.email);
  assert.equal(row.keyName, 'test key');
  assert.deepEqual(row.targetIds, ['software']);
  assert.equal(row.summary, 'disabled the software app');
  assert.equal(typeof row.at, 'number');
});

test('a failed operation writes no row', async () => {
  const before = (await h.call('listActivity')).items.length;
  await assert.rejects(h.call('removeMember', { email: 'ghost@example.com' }));
  assert.equal((await h.call('listActivity')).items.length, before);
});

test('newest first, 60 a page, continuing with before', async () => {
  for (let i = 0; i < 130; i++) await h.call('updateBusiness', { zip: String(10000 + i) });
  const seen: any[] = [];
  let page = await h.call('listActivity');
  while (true) {
    seen.push(...page.items);
    assert.ok(page.items.length <= 60);
    if (page.nextBefore === null) break;
    assert.equal(page.nextBefore, page.items.at(-1).at);
    page = await h.call('listActivity', { before: page.nextBefore });
  }
  assert.equal(seen.length, 131);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1].at > seen[i].at);
  assert.equal(new Set(seen.map((r) => r.id)).size, seen.length);
  assert.match(seen[0].summary, /zip/);
});

test('another business sees none of these rows', async () => {
  const other = await h.newBusiness();
  assert.deepEqual((await h.call('listActivity', {}, other)).items, []);
});

/** 180 suppliers created in parallel within one millisecond, then the log read page by page over HTTP. */
async function sameMillisecond(env: Record<string, string> = {}) {
  const at = Date.parse('2026-11-02T08:00:00Z');
  const fixed = await createHarness({ env, overrides: { clock: { now: () => at } } });
  try {
    const biz = await fixed.newBusiness('Same Millisecond Ltd');
    const origin = await fixed.listen();
    const post = async (op: string, body: unknown) => {
      const res = await fetch(`${origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${biz.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as any;
      assert.equal(res.status, 200, JSON.stringify(json));
      return json.result;
    };
    await Promise.all(Array.from({ length: 180 }, (_, i) => post('createSupplier', { name: `Supplier ${i}`, email: `s${i}@example.com` })));
    const seen: any[] = [];
    let pages = 0;
    let cursor: string | null = null;
    do {
      const page: any = await post('listActivity', cursor ? { cursor } : {});
      pages++;
      assert.ok(page.items.length <= 60);
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    assert.equal(pages, 3);
    assert.ok(seen.every((r) => r.at === at));
    assert.equal(new Set(seen.map((r) => r.id)).size, 180, 'every row exactly once');
    assert.deepEqual(new Set(seen.map((r) => r.targetIds[0])), new Set(Array.from({ length: 180 }, (_, i) => `s${i}@example.com`)));
    // GET takes the cursor in the query string too.
    const first: any = await post('listActivity', {});
    const res = await fetch(`${origin}/v1/listActivity?cursor=${first.nextCursor}`, { headers: { authorization: `Bearer ${biz.apiKey}` } });
    assert.equal(((await res.json()) as any).result.items[0].id, seen[60].id);
  } finally {
    await fixed.close();
  }
}

test('rows of the same millisecond: paging by nextCursor over HTTP shows every row exactly once', () => sameMillisecond());

const emulator = process.env.FIRESTORE_EMULATOR_HOST || process.env.TEST_FIRESTORE_EMULATOR_HOST;
test('the same on Firestore (its index serves the query)', { skip: emulator ? false : 'no Firestore emulator (TEST_FIRESTORE_EMULATOR_HOST is not set)' }, () => {
  process.env.FIRESTORE_EMULATOR_HOST = emulator;
  process.env.GCLOUD_PROJECT ??= 'demo-bfo';
  return sameMillisecond({ STORE: 'firestore', FILES: 'local', CREDENTIALS_KEY: 'activity-firestore-test-key' });
});

test('a cursor that did not come from listActivity is refused naming the field', async () => {
  await assert.rejects(h.call('listActivity', { cursor: 'bm90LWEtY3Vyc29y' }), (e: any) => e.code === 'invalid-argument' && /^cursor/.test(e.message));
});
