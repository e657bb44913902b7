import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { invoiceDoc, invoicesOf, putInvoices, reading, seedIssuer } from '../software/helpers.ts';
import { suggestionsPath, type SuggestionRecord } from '../../../functions/src/domain/invoices/issuers.ts';
import { suppliersPath, type SupplierRecord } from '../../../functions/src/domain/payments/suppliers.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

const store = () => h.app.services.store;
const suggestion = async (id: string, b = h.owner.businessId) => (await store().get(suggestionsPath(b, id)))?.data as unknown as SuggestionRecord;
const supplier = async (key: string, b = h.owner.businessId) => (await store().get(suppliersPath(b, key)))?.data as unknown as SupplierRecord | undefined;

test("a suggestion with a phone becomes a manual supplier keyed by the E.164 phone; its invoices are assigned", async () => {
  const b = h.owner.businessId;
  const s = await seedIssuer(store(), b, { name: 'Print House', phone: '03-5551234', email: 'Office@PrintHouse.example', vatId: '514141414' }, { count: 3 });
  const r = await h.call('supplierSuggestionsCreate', { ids: [s.id] });
  assert.deepEqual(r, { created: [{ id: s.id, supplierKey: '+97235551234', existing: false, assigned: 3 }], needsContact: [], notFound: [], skipped: [] });
  const sup = await supplier('+97235551234');
  assert.equal(sup?.name, 'Print House');
  assert.equal(sup?.phone, '+97235551234');
  assert.equal(sup?.email, 'office@printhouse.example');
  assert.equal(sup?.kind, 'supplier');
  assert.equal(sup?.manual, true);
  assert.equal(sup?.card.companyId, '514141414');
  for (const d of await invoicesOf(store(), b, s.docIds)) {
    assert.deepEqual([d.supplierKey, d.supplierName, d.supplierBy, d.suggestionId], ['+97235551234', 'Print House', 'auto', s.id]);
  }
  const sg = await suggestion(s.id);
  assert.equal(sg.status, 'created');
  assert.equal(sg.supplierKey, '+97235551234');
  assert.equal((await h.call('supplierSuggestionsList')).items.some((x: any) => x.id === s.id), false);
  assert.ok((await h.call('suppliersList')).items.some((x: any) => x.key === '+97235551234'));
});

test('an email-only suggestion is keyed by the lower-cased email; kind freelancer is kept', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Noa Design', email: 'Noa@Design.EXAMPLE' });
  const r = await h.call('supplierSuggestionsCreate', { ids: [s.id], kind: 'freelancer' });
  assert.equal(r.created[0].supplierKey, 'noa@design.example');
  assert.equal((await supplier('noa@design.example'))?.kind, 'freelancer');
});

test('without phone or email a suggestion needs a contact: nothing is created for it, the rest go ahead', async () => {
  const b = h.owner.businessId;
  const bare = await seedIssuer(store(), b, { name: 'Corner Shop', vatId: '518181818' }, { count: 2 });
  const ok = await seedIssuer(store(), b, { name: 'Fine Supplies', phone: '+972 52 700 0001' });
  const r = await h.call('supplierSuggestionsCreate', { ids: [bare.id, ok.id] });
  assert.deepEqual(r.needsContact, [bare.id]);
  assert.deepEqual(r.created.map((c: any) => c.id), [ok.id]);
  assert.equal((await suggestion(bare.id)).status, 'open');
  assert.ok((await invoicesOf(store(), b, bare.docIds)).every((d) => d.supplierKey === null));

  const again = await h.call('supplierSuggestionsCreate', { ids: [bare.id], contact: { [bare.id]: { phone: '054-1231234', email: 'SHOP@corner.example' } } });
  assert.deepEqual(again.created, [{ id: bare.id, supplierKey: '+972541231234', existing: false, assigned: 2 }]);
  const sup = await supplier('+972541231234');
  assert.equal(sup?.email, 'shop@corner.example');
  assert.equal(sup?.card.companyId, '518181818');
});

test('a contact email alone becomes the key, lower-cased; contact fields win over what the AI read', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Old Number Ltd', vatId: '519191919' });
  const r = await h.call('supplierSuggestionsCreate', { ids: [s.id], contact: { [s.id]: { email: ' Billing@OldNumber.example ' } } });
  assert.equal(r.created[0].supplierKey, 'billing@oldnumber.example');
  const moved = await seedIssuer(store(), h.owner.businessId, { name: 'Moved Office', phone: '03-5000000', vatId: '519292929' });
  const m = await h.call('supplierSuggestionsCreate', { ids: [moved.id], contact: { [moved.id]: { phone: '+972 3 600 0000' } } });
  assert.equal(m.created[0].supplierKey, '+97236000000');
  const bad = await seedIssuer(store(), h.owner.businessId, { name: 'Garbled', phone: '12', email: 'not-an-email' });
  assert.deepEqual((await h.call('supplierSuggestionsCreate', { ids: [bad.id] })).needsContact, [bad.id], 'unusable contacts read by the AI count as missing');
});

test('an invalid contact is invalid-argument naming contact.<id>.<field>, and nothing is written for any id', async () => {
  const b = h.owner.businessId;
  const good = await seedIssuer(store(), b, { name: 'Would Be Created', phone: '0527777777' });
  const bare = await seedIssuer(store(), b, { name: 'No Contact Yet' });
  await assert.rejects(
    h.call('supplierSuggestionsCreate', { ids: [good.id, bare.id], contact: { [bare.id]: { phone: '050-12' } } }),
    { code: 'invalid-argument', message: new RegExp(`^contact\\.${bare.id}\\.phone: "050-12" is not a valid phone`) },
  );
  await assert.rejects(h.call('supplierSuggestionsCreate', { ids: [bare.id], contact: { [bare.id]: { email: 'nope' } } }), {
    code: 'invalid-argument',
    message: new RegExp(`^contact\\.${bare.id}\\.email: `),
  });
  await assert.rejects(h.call('supplierSuggestionsCreate', { ids: [bare.id], contact: { other: { phone: '0501234567' } } }), {
    code: 'invalid-argument',
    message: /^contact\.other: is not one of ids/,
  });
  await assert.rejects(h.call('supplierSuggestionsCreate', { ids: [] }), { code: 'invalid-argument', message: /^ids: / });
  await assert.rejects(h.call('supplierSuggestionsCreate', { ids: [good.id], kind: 'vendor' }), { code: 'invalid-argument', message: /^kind: / });
  assert.equal((await suggestion(good.id)).status, 'open');
  assert.equal(await supplier('+972527777777'), undefined);
});

test('an existing supplier with the key is reused, not refused: invoices get its name, its record is untouched', async () => {
  const b = h.owner.businessId;
  await h.call('createSupplier', { name: 'Dana Studio', phone: '050-8888888', kind: 'freelancer' });
  const s = await seedIssuer(store(), b, { name: 'D. Studio Ltd', phone: '+972508888888' }, { count: 2 });
  const r = await h.call('supplierSuggestionsCreate', { ids: [s.id] });
  assert.deepEqual(r.created, [{ id: s.id, supplierKey: '+972508888888', existing: true, assigned: 2 }]);
  const sup = await supplier('+972508888888');
  assert.equal(sup?.name, 'Dana Studio');
  assert.equal(sup?.kind, 'freelancer');
  assert.ok((await invoicesOf(store(), b, s.docIds)).every((d) => d.supplierName === 'Dana Studio'));
});

test('two suggestions with the same contact end as one supplier', async () => {
  const b = h.owner.businessId;
  const one = await seedIssuer(store(), b, { name: 'Twin A', vatId: '520202020', phone: '0539999999' });
  const two = await seedIssuer(store(), b, { name: 'Twin B', email: 'twin@example.com' });
  const r = await h.call('supplierSuggestionsCreate', { ids: [one.id, two.id], contact: { [two.id]: { phone: '053-9999999' } } });
  assert.deepEqual(r.created.map((c: any) => [c.supplierKey, c.existing]), [['+972539999999', false], ['+972539999999', true]]);
});

test('invoices assigned by hand keep their supplier', async () => {
  const b = h.owner.businessId;
  const s = await seedIssuer(store(), b, { name: 'Mixed', email: 'mixed@example.com' }, { count: 2 });
  const hand = invoiceDoc(b, reading({ name: 'Mixed', email: 'mixed@example.com' }), { suggestionId: s.id, supplierKey: '+972501112222', supplierName: 'Chosen', supplierBy: 'hand' });
  await putInvoices(store(), [hand]);
  const r = await h.call('supplierSuggestionsCreate', { ids: [s.id] });
  assert.equal(r.created[0].assigned, 2);
  assert.equal((await invoicesOf(store(), b, [hand.docId]))[0].supplierKey, '+972501112222');
});

test('calling again is harmless and assigns invoices that arrived in between', async () => {
  const b = h.owner.businessId;
  const s = await seedIssuer(store(), b, { name: 'Repeat', phone: '0546666666' });
  await h.call('supplierSuggestionsCreate', { ids: [s.id] });
  const late = invoiceDoc(b, reading({ name: 'Repeat', phone: '0546666666' }), { suggestionId: s.id });
  await putInvoices(store(), [late]);
  const r = await h.call('supplierSuggestionsCreate', { ids: [s.id, s.id] });
  assert.deepEqual(r.created, [{ id: s.id, supplierKey: '+972546666666', existing: true, assigned: 1 }]);
  assert.equal((await invoicesOf(store(), b, [late.docId]))[0].supplierKey, '+972546666666');
});

test('unknown ids and ids of another business are reported in notFound; software suggestions are skipped', async () => {
  const other = await h.newBusiness('Other Co');
  const theirs = await seedIssuer(store(), other.businessId, { name: 'Theirs', phone: '0541000000' });
  const sw = await seedIssuer(store(), h.owner.businessId, { name: 'Some SaaS', email: 'billing@saas.example' });
  await h.call('supplierSuggestionToSoftware', { id: sw.id });
  const r = await h.call('supplierSuggestionsCreate', { ids: ['nope', theirs.id, sw.id] });
  assert.deepEqual(r.notFound, ['nope', theirs.id]);
  assert.deepEqual(r.skipped.map((x: any) => x.id), [sw.id]);
  assert.match(r.skipped[0].reason, /software list/);
  assert.deepEqual(r.created, []);
  assert.equal((await suggestion(theirs.id, other.businessId)).status, 'open');
});

test('a dismissed suggestion can still be made a supplier', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Changed Mind', phone: '0542020202' });
  await h.call('supplierSuggestionsDismiss', { ids: [s.id] });
  assert.equal((await h.call('supplierSuggestionsCreate', { ids: [s.id] })).created.length, 1);
});

test('all invoices of a large suggestion are assigned (chunks under the 500-write limit)', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Monthly Courier', phone: '0543030303' }, { count: 1100 });
  const r = await h.call('supplierSuggestionsCreate', { ids: [s.id] });
  assert.equal(r.created[0].assigned, 1100);
});

test('writes one activity row naming the suggestions and supplier keys', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Logged', email: 'logged@sugg.example' });
  await h.call('supplierSuggestionsCreate', { ids: [s.id, 'missing'] });
  const { items } = await h.call('listActivity');
  const row = items.find((x: any) => x.operation === 'supplierSuggestionsCreate' && x.targetIds.includes(s.id));
  assert.ok(row);
  assert.deepEqual(row.targetIds, [s.id, 'logged@sugg.example']);
  assert.match(row.summary, /^1 supplier\(s\) from suggestions \(0 existing\), 1 invoice\(s\) assigned; 0 need a contact, 1 not found/);
});
