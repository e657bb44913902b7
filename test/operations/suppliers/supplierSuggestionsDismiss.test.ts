import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { invoicesOf, seedIssuer } from '../software/helpers.ts';
import { suggestionsPath, type SuggestionRecord } from '../../../functions/src/domain/invoices/issuers.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

const status = async (id: string, b = h.owner.businessId) => ((await h.app.services.store.get(suggestionsPath(b, id)))?.data as unknown as SuggestionRecord).status;

test('dismissed suggestions leave the list; their invoices are untouched; dismissing again is harmless', async () => {
  const b = h.owner.businessId;
  const { store } = h.app.services;
  const a = await seedIssuer(store, b, { name: 'Hide Me', phone: '0541234000' }, { count: 2 });
  const keep = await seedIssuer(store, b, { name: 'Keep Me', phone: '0541234001' });
  assert.deepEqual(await h.call('supplierSuggestionsDismiss', { ids: [a.id] }), { dismissed: [a.id], notFound: [], skipped: [] });
  assert.equal(await status(a.id), 'dismissed');
  assert.deepEqual((await h.call('supplierSuggestionsList')).items.map((s: any) => s.id), [keep.id]);
  assert.ok((await invoicesOf(store, b, a.docIds)).every((d) => d.suggestionId === a.id && d.supplierKey === null));
  assert.deepEqual(await h.call('supplierSuggestionsDismiss', { ids: [a.id, a.id] }), { dismissed: [a.id], notFound: [], skipped: [] });
});

test('unknown ids and ids of another business are reported in notFound and change nothing', async () => {
  const other = await h.newBusiness('Other Co');
  const theirs = await seedIssuer(h.app.services.store, other.businessId, { name: 'Theirs', phone: '0541234002' });
  const mine = await seedIssuer(h.app.services.store, h.owner.businessId, { name: 'Mine', phone: '0541234003' });
  const r = await h.call('supplierSuggestionsDismiss', { ids: ['nope', theirs.id, mine.id] });
  assert.deepEqual(r, { dismissed: [mine.id], notFound: ['nope', theirs.id], skipped: [] });
  assert.equal(await status(theirs.id, other.businessId), 'open');
});

test('suggestions already made suppliers or moved to software are skipped with the reason', async () => {
  const { store } = h.app.services;
  const made = await seedIssuer(store, h.owner.businessId, { name: 'Made', phone: '0541234004' });
  const sw = await seedIssuer(store, h.owner.businessId, { name: 'Tool', email: 'billing@tool.example' });
  await h.call('supplierSuggestionsCreate', { ids: [made.id] });
  await h.call('supplierSuggestionToSoftware', { id: sw.id });
  const r = await h.call('supplierSuggestionsDismiss', { ids: [made.id, sw.id] });
  assert.deepEqual(r.dismissed, []);
  assert.deepEqual(r.skipped, [
    { id: made.id, reason: 'it is already supplier +972541234004' },
    { id: sw.id, reason: 'it is in the software list' },
  ]);
  assert.equal(await status(made.id), 'created');
  assert.equal(await status(sw.id), 'software');
});

test('ids are required, and writes one activity row', async () => {
  await assert.rejects(h.call('supplierSuggestionsDismiss', {}), { code: 'invalid-argument', message: /^ids: / });
  await assert.rejects(h.call('supplierSuggestionsDismiss', { ids: Array(101).fill('x') }), { code: 'invalid-argument', message: /^ids: / });
  const s = await seedIssuer(h.app.services.store, h.owner.businessId, { name: 'Logged', phone: '0541234005' });
  await h.call('supplierSuggestionsDismiss', { ids: [s.id] });
  const row = (await h.call('listActivity')).items.find((x: any) => x.operation === 'supplierSuggestionsDismiss');
  assert.deepEqual(row.targetIds, [s.id]);
  assert.equal(row.summary, '1 suggestion(s) dismissed; 0 not found, 0 skipped');
});
