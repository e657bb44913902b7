import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('a free slug is available; one held by another business is not; my own is', async () => {
  assert.deepEqual(await h.call('checkPublicSlug', { slug: 'free-one' }), { slug: 'free-one', available: true, mine: false });
  const other = await h.newBusiness('Other');
  await h.call('setMyPublicLink', { slug: 'taken-one' }, other);
  assert.equal((await h.call('checkPublicSlug', { slug: 'taken-one' })).available, false);
  assert.deepEqual(await h.call('checkPublicSlug', { slug: 'taken-one' }, other), { slug: 'taken-one', available: true, mine: true });
});

test('a slug outside the format is invalid-argument', async () => {
  for (const slug of ['Upper', 'has space', 'heb-שלום', '-edge', 'edge-', 'a--b', 'ab', 'x'.repeat(41)]) {
    await assert.rejects(h.call('checkPublicSlug', { slug }), { code: 'invalid-argument', message: /^slug:/ }, slug);
  }
});
