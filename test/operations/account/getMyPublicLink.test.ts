import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('null until a slug is set, then the link under the public base', async () => {
  assert.deepEqual(await h.call('getMyPublicLink'), { slug: null, url: null });
  await h.call('setMyPublicLink', { slug: 'dana-design' });
  assert.deepEqual(await h.call('getMyPublicLink'), { slug: 'dana-design', url: `${h.config.publicLinkBase}/link/dana-design` });
});
