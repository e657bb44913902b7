import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { invoicesOf, scriptedAi, seedIssuer } from '../software/helpers.ts';
import { softwarePath, suggestionsPath, type SuggestionRecord } from '../../../functions/src/domain/invoices/issuers.ts';

const ai = scriptedAi();
let h: Harness;
before(async () => (h = await createHarness({ overrides: { ai } })));
after(() => h.close());

const store = () => h.app.services.store;

test('the suggestion moves with its invoices: a visible software record with cadence auto, invoices carry softwareId only', async () => {
  const b = h.owner.businessId;
  const s = await seedIssuer(store(), b, { name: 'Canva', email: 'billing@canva.example' }, { count: 3 });
  const row = await h.call('supplierSuggestionToSoftware', { id: s.id });
  assert.deepEqual(row, { id: s.id, name: 'Canva', vendorKey: 'email:billing@canva.example', hidden: false, cadence: 'auto', docCount: 3 });
  for (const d of await invoicesOf(store(), b, s.docIds)) assert.deepEqual([d.softwareId, d.suggestionId], [s.id, null]);
  assert.equal(((await store().get(suggestionsPath(b, s.id)))!.data as unknown as SuggestionRecord).status, 'software');
  assert.deepEqual((await h.call('supplierSuggestionsList')).items, []);
  assert.deepEqual((await h.call('softwareList')).items, [row]);
});

test('the choice is kept: softwareSync, even forced, does not send the issuer to the AI', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Figma', vatId: '525252525' }, { count: 1 });
  await h.call('supplierSuggestionToSoftware', { id: s.id });
  ai.calls.length = 0;
  await h.call('softwareSync', { force: true });
  assert.ok(ai.calls.flat().every((i) => i.key !== s.vendorKey));
});

test('an existing software record for the issuer keeps its settings; moving twice is harmless', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Notion', email: 'team@notion.example' }, { count: 2 });
  await h.call('supplierSuggestionToSoftware', { id: s.id });
  await h.call('softwareUpdate', { id: s.id, hidden: true, cadence: 'yearly', name: 'Notion Team' });
  const again = await h.call('supplierSuggestionToSoftware', { id: s.id });
  assert.deepEqual(again, { id: s.id, name: 'Notion Team', vendorKey: s.vendorKey, hidden: true, cadence: 'yearly', docCount: 2 });
});

test('a dismissed suggestion can move; one already made a supplier cannot', async () => {
  const dismissed = await seedIssuer(store(), h.owner.businessId, { name: 'Dropbox', email: 'billing@dropbox.example' });
  await h.call('supplierSuggestionsDismiss', { ids: [dismissed.id] });
  assert.equal((await h.call('supplierSuggestionToSoftware', { id: dismissed.id })).docCount, 1);
  const made = await seedIssuer(store(), h.owner.businessId, { name: 'Real Supplier', phone: '0547770000' });
  await h.call('supplierSuggestionsCreate', { ids: [made.id] });
  await assert.rejects(h.call('supplierSuggestionToSoftware', { id: made.id }), { code: 'failed-precondition', message: /already supplier \+972547770000/ });
  assert.equal(await store().get(softwarePath(h.owner.businessId, made.id)), null);
});

test('unknown ids and ids of another business are not-found and change nothing', async () => {
  const other = await h.newBusiness('Other Co');
  const theirs = await seedIssuer(store(), other.businessId, { name: 'Theirs SaaS', email: 'x@theirs.example' });
  await assert.rejects(h.call('supplierSuggestionToSoftware', { id: 'nope' }), { code: 'not-found' });
  await assert.rejects(h.call('supplierSuggestionToSoftware', { id: theirs.id }), { code: 'not-found', message: `suggestion ${theirs.id} not found` });
  assert.equal(((await store().get(suggestionsPath(other.businessId, theirs.id)))!.data as unknown as SuggestionRecord).status, 'open');
  assert.equal(await store().get(softwarePath(h.owner.businessId, theirs.id)), null);
  await assert.rejects(h.call('supplierSuggestionToSoftware', {}), { code: 'invalid-argument', message: /^id: / });
});

test('writes one activity row', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Miro', email: 'billing@miro.example' });
  await h.call('supplierSuggestionToSoftware', { id: s.id });
  const row = (await h.call('listActivity')).items.find((x: any) => x.operation === 'supplierSuggestionToSoftware');
  assert.deepEqual(row.targetIds, [s.id]); // the software record shares the suggestion's id
  assert.equal(row.summary, 'suggestion moved to software Miro with 1 invoice(s)');
});
