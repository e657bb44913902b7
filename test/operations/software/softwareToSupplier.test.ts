import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { invoicesOf, putInvoices, invoiceDoc, reading, scriptedAi, seedIssuer } from './helpers.ts';
import { issuerId, softwarePath, suggestionsPath, type SoftwareRecord, type SuggestionRecord } from '../../../functions/src/domain/invoices/issuers.ts';
import { vendorKeyOf } from '../../../functions/src/domain/invoices/vendorKeys.ts';

const ai = scriptedAi(['Hosting Co', 'Print Shop']);
let h: Harness;
before(async () => (h = await createHarness({ overrides: { ai } })));
after(() => h.close());

const store = () => h.app.services.store;
const suggestion = async (id: string) => (await store().get(suggestionsPath(h.owner.businessId, id)))?.data as unknown as SuggestionRecord;

test('the tool becomes an open suggestion of the same issuer with all its invoices; the software record is deleted', async () => {
  const b = h.owner.businessId;
  const s = await seedIssuer(store(), b, { name: 'Hosting Co', vatId: '527272727', phone: '03-5553333' }, { count: 3 });
  await h.call('softwareSync');
  await h.call('softwareUpdate', { id: s.id, name: 'Hosting Company' });
  const row = await h.call('softwareToSupplier', { id: s.id });
  assert.deepEqual(row, { id: s.id, name: 'Hosting Company', phone: '03-5553333', email: null, vatId: '527272727', vendorKey: 'vat:527272727', status: 'open', docCount: 3 });
  assert.deepEqual([...(await suggestion(s.id)).docIds].sort(), [...s.docIds].sort());
  for (const d of await invoicesOf(store(), b, s.docIds)) assert.deepEqual([d.softwareId, d.suggestionId], [null, s.id]);
  assert.equal(await store().get(softwarePath(b, s.id)), null);
  assert.deepEqual((await h.call('softwareList')).items, []);
  assert.deepEqual((await h.call('supplierSuggestionsList')).items.map((x: any) => [x.id, x.docCount]), [[s.id, 3]]);
  await assert.rejects(h.call('softwareToSupplier', { id: s.id }), { code: 'not-found', message: `software ${s.id} not found` });
});

test('softwareSync, even forced, does not move the issuer back', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Print Shop', email: 'shop@print.example' }, { count: 1 });
  assert.equal((await h.call('softwareSync')).software, 1);
  await h.call('softwareToSupplier', { id: s.id });
  ai.calls.length = 0;
  await h.call('softwareSync', { force: true });
  assert.ok(ai.calls.flat().every((i) => i.key !== s.vendorKey));
  assert.equal((await suggestion(s.id)).status, 'open');
});

test('a tool that never was a suggestion gets one built from an invoice reading', async () => {
  const b = h.owner.businessId;
  const r = reading({ name: 'Cloud Seats', email: 'Billing@Seats.example', phone: '+972 3 555 4444' }, ['Seats']);
  const id = issuerId(vendorKeyOf(r)!);
  const sw: SoftwareRecord = { id, vendorKey: vendorKeyOf(r)!, name: 'Seats', hidden: true, cadence: 'monthly', docIds: [], createdAt: 'x', updatedAt: 'x' };
  await store().set(softwarePath(b, id), { ...sw });
  const doc = invoiceDoc(b, r, { softwareId: id });
  await putInvoices(store(), [doc]);
  const row = await h.call('softwareToSupplier', { id });
  assert.deepEqual(row, { id, name: 'Seats', phone: '+972 3 555 4444', email: 'billing@seats.example', vatId: null, vendorKey: 'email:billing@seats.example', status: 'open', docCount: 1 });
  assert.deepEqual((await suggestion(id)).docIds, [doc.docId]);
});

test('ids of another business and unknown ids are not-found', async () => {
  const other = await h.newBusiness('Other Co');
  const s = await seedIssuer(store(), other.businessId, { name: 'Theirs', email: 'x@theirs.example' });
  await h.call('supplierSuggestionToSoftware', { id: s.id }, other);
  await assert.rejects(h.call('softwareToSupplier', { id: s.id }), { code: 'not-found' });
  await assert.rejects(h.call('softwareToSupplier', { id: 'nope' }), { code: 'not-found' });
  assert.ok(await store().get(softwarePath(other.businessId, s.id)));
});

test('writes one activity row', async () => {
  const s = await seedIssuer(store(), h.owner.businessId, { name: 'Logged Tool', email: 'logged@tool.example' }, { count: 2 });
  await h.call('supplierSuggestionToSoftware', { id: s.id });
  await h.call('softwareToSupplier', { id: s.id });
  const row = (await h.call('listActivity')).items.find((x: any) => x.operation === 'softwareToSupplier');
  assert.deepEqual(row.targetIds, [s.id]);
  assert.equal(row.summary, 'software moved to the supplier suggestions with 2 invoice(s)');
});
