import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('sets the slug and returns the link', async () => {
  const res = await h.call('setMyPublicLink', { slug: 'studio-7' });
  assert.deepEqual(res, { slug: 'studio-7', url: `${h.config.publicLinkBase}/link/studio-7` });
});

test('slugs are unique across businesses', async () => {
  const other = await h.newBusiness('Other');
  await assert.rejects(h.call('setMyPublicLink', { slug: 'studio-7' }, other), { code: 'already-exists', message: /slug: "studio-7" is taken/ });
  assert.deepEqual(await h.call('getMyPublicLink', {}, other), { slug: null, url: null });
});

test('changing the slug releases the old one for others', async () => {
  await h.call('setMyPublicLink', { slug: 'studio-8' });
  const other = await h.newBusiness('Other');
  assert.equal((await h.call('setMyPublicLink', { slug: 'studio-7' }, other)).slug, 'studio-7');
});

test('setting the same slug again is harmless', async () => {
  await h.call('setMyPublicLink', { slug: 'studio-8' });
  assert.equal((await h.call('getMyPublicLink')).slug, 'studio-8');
});

test('two businesses racing for one slug: exactly one gets it', async () => {
  const a = await h.newBusiness('A');
  const b = await h.newBusiness('B');
  const results = await Promise.allSettled([h.call('setMyPublicLink', { slug: 'contested' }, a), h.call('setMyPublicLink', { slug: 'contested' }, b)]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  assert.equal(results.filter((r) => r.status === 'rejected' && (r.reason as any).code === 'already-exists').length, 1);
});
