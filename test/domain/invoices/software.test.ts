import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { invoiceDoc, invoicesOf, putInvoices, reading, seedIssuer } from '../../operations/software/helpers.ts';
import { softwarePath, suggestionsPath, type SoftwareRecord, type SuggestionRecord } from '../../../functions/src/domain/invoices/issuers.ts';
import {
  assignSuggestionInvoices,
  MOVE_CHUNK,
  moveIssuerToSoftware,
  moveSoftwareToSuggestion,
  SCAN_PAGE,
  unassignedIssuers,
} from '../../../functions/src/domain/invoices/software.ts';
import type { Meter } from '../../../functions/src/ports/store.ts';

let h: Harness;
let b: string;
const at = '2025-04-01T08:00:00.000Z';
before(async () => {
  h = await createHarness();
  b = h.owner.businessId;
});
after(() => h.close());

const MANY = MOVE_CHUNK * 2 + 101; // three transactions, more than one commit's 500 writes in all

test('moving an issuer to software and back carries every invoice, in commits of at most 500 writes', async () => {
  const { store } = h.app.services;
  const s = await seedIssuer(store, b, { name: 'Many Cloud', vatId: '511111111' }, { count: MANY, lineItems: ['Hosting'] });
  const other = await seedIssuer(store, b, { name: 'Bystander', vatId: '522222222' }, { count: 2 });

  const there = await moveIssuerToSoftware(store, b, { vendorKey: s.vendorKey, name: 'Many Cloud' }, at);
  assert.deepEqual(there, { softwareId: s.id, moved: MANY });
  const sw = (await store.get(softwarePath(b, s.id)))!.data as unknown as SoftwareRecord;
  assert.equal(sw.hidden, false);
  assert.equal(sw.cadence, 'auto');
  assert.equal(sw.docIds.length, 500, 'docIds keep the latest 500');
  const docs = await invoicesOf(store, b, s.docIds);
  assert.ok(docs.every((d) => d.softwareId === s.id && d.suggestionId === null));
  assert.equal(((await store.get(suggestionsPath(b, s.id)))!.data as unknown as SuggestionRecord).status, 'software');
  assert.ok((await invoicesOf(store, b, other.docIds)).every((d) => d.softwareId === null && d.suggestionId === other.id));

  const back = await moveSoftwareToSuggestion(store, b, s.id, at);
  assert.deepEqual(back, { suggestionId: s.id, moved: MANY });
  assert.equal(await store.get(softwarePath(b, s.id)), null);
  const sg = (await store.get(suggestionsPath(b, s.id)))!.data as unknown as SuggestionRecord;
  assert.equal(sg.status, 'open');
  assert.equal(sg.docIds.length, 500);
  assert.ok((await invoicesOf(store, b, s.docIds)).every((d) => d.softwareId === null && d.suggestionId === s.id));
});

test('the software move also takes unassigned invoices of the issuer that never had a suggestion, but not assigned ones', async () => {
  const { store } = h.app.services;
  const loose = await seedIssuer(store, b, { name: 'Loose SaaS', email: 'billing@loose.example' }, { count: 2, suggestion: false });
  const assigned = invoiceDoc(b, reading({ name: 'Loose SaaS', email: 'billing@loose.example' }), { supplierKey: '+972501111111', supplierName: 'X', supplierBy: 'hand' });
  await putInvoices(store, [assigned]);
  const r = await moveIssuerToSoftware(store, b, { vendorKey: loose.vendorKey, name: 'Loose SaaS' }, at);
  assert.equal(r.moved, 2);
  assert.ok((await invoicesOf(store, b, loose.docIds)).every((d) => d.softwareId === loose.id));
  assert.equal((await invoicesOf(store, b, [assigned.docId]))[0].softwareId, null);
  assert.equal(await store.get(suggestionsPath(b, loose.id)), null, 'no suggestion is invented');
});

test('assigning a suggestion to a supplier is chunked and keeps hand assignments', async () => {
  const { store } = h.app.services;
  const s = await seedIssuer(store, b, { name: 'Bulk Supplier', phone: '050-3333333' }, { count: MANY });
  const hand = invoiceDoc(b, reading({ name: 'Bulk Supplier', phone: '050-3333333' }), { suggestionId: s.id, supplierKey: 'someone@example.com', supplierName: 'Someone', supplierBy: 'hand' });
  await putInvoices(store, [hand]);
  const n = await assignSuggestionInvoices(store, b, s.id, { key: '+972503333333', name: 'Bulk Supplier' }, at);
  assert.equal(n, MANY);
  const docs = await invoicesOf(store, b, s.docIds);
  assert.ok(docs.every((d) => d.supplierKey === '+972503333333' && d.supplierName === 'Bulk Supplier' && d.supplierBy === 'auto' && d.suggestionId === s.id));
  const kept = (await invoicesOf(store, b, [hand.docId]))[0];
  assert.equal(kept.supplierKey, 'someone@example.com');
  assert.equal(kept.supplierBy, 'hand');
  assert.equal(await assignSuggestionInvoices(store, b, s.id, { key: '+972503333333', name: 'Bulk Supplier' }, at), 0, 'a second run has nothing left');
});

test('the issuer scan finds each unassigned issuer once and skips past long runs of one issuer', async () => {
  const other = await h.newBusiness('Scan Co');
  const { store } = h.app.services;
  const big = await seedIssuer(store, other.businessId, { name: 'Aaa Big', vatId: '533333333' }, { count: SCAN_PAGE * 3, suggestion: false, lineItems: ['Seats'] });
  const small = await seedIssuer(store, other.businessId, { name: 'Zed Small', email: 'zed@example.com' }, { count: 1 });
  await seedIssuer(store, other.businessId, { name: 'Paid Supplier', phone: '0544444444' }, { count: 3, over: { supplierKey: '+972544444444', supplierBy: 'hand' } });
  await seedIssuer(store, other.businessId, { name: 'A Tool', vatId: '544444444' }, { count: 3, suggestion: false, over: { softwareId: 'sw1' } });
  await putInvoices(store, [invoiceDoc(other.businessId, null)]); // unread: no issuer yet

  const meter: Meter = { reads: 0, writes: 0 };
  const found = await unassignedIssuers(store.metered(meter), other.businessId);
  assert.deepEqual([...found.keys()].sort(), [big.vendorKey, small.vendorKey].sort());
  assert.deepEqual(found.get(big.vendorKey), { vendorKey: big.vendorKey, name: 'Aaa Big', lineItems: ['Seats'] });
  assert.ok(meter.reads <= SCAN_PAGE + 2, `read ${meter.reads} documents for ${SCAN_PAGE * 3 + 1} unassigned invoices`);
});
