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
