import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { invoiceDoc, invoicesOf, putInvoices, reading, scriptedAi, seedIssuer } from './helpers.ts';
import { softwarePath, suggestionsPath, type SuggestionRecord } from '../../../functions/src/domain/invoices/issuers.ts';
import { issuerClassesPath, type IssuerClassRecord } from '../../../functions/src/domain/invoices/software.ts';
import { SOFTWARE_SYNC_BATCH } from '../../../functions/src/operations/software/softwareSync.ts';

const ai = scriptedAi(['Zoom', 'GitHub']);
let h: Harness;
before(async () => (h = await createHarness({ overrides: { ai } })));
after(() => h.close());

const store = () => h.app.services.store;
const sentKeys = () => ai.calls.flat().map((i) => i.key);
const status = async (u: TestUser, id: string) => ((await store().get(suggestionsPath(u.businessId, id)))?.data as unknown as SuggestionRecord).status;
const decision = async (u: TestUser, id: string) => (await store().get(issuerClassesPath(u.businessId, id)))?.data as unknown as IssuerClassRecord | undefined;
const defaultReply = ai.reply;
/** A business of its own for each test, and the fake AI back to its script. */
const fresh = async () => {
  ai.calls.length = 0;
  ai.softwareNames = new Set(['Zoom', 'GitHub']);
  ai.reply = defaultReply;
  return h.newBusiness();
};

test('without an AI key it is failed-precondition "AI is not configured" and writes nothing', async () => {
  const off = await createHarness({ overrides: { ai: scriptedAi([], false) } });
  try {
    await seedIssuer(off.app.services.store, off.owner.businessId, { name: 'Zoom', email: 'billing@zoom.example' });
    await assert.rejects(off.call('softwareSync'), { code: 'failed-precondition', message: 'AI is not configured' });
    assert.deepEqual(await off.app.services.store.query({ collection: issuerClassesPath(off.owner.businessId) }), []);
  } finally {
    await off.close();
  }
});

test('classifies open suggestions and unassigned issuers: software moves with its invoices, suppliers stay suggestions', async () => {
  const u = await fresh();
  const b = u.businessId;
  const zoom = await seedIssuer(store(), b, { name: 'Zoom', email: 'billing@zoom.example' }, { count: 2, lineItems: ['Pro plan', 'Extra seat'] });
  const plumber = await seedIssuer(store(), b, { name: 'Moshe Plumbing', phone: '0529876543' });
  const github = await seedIssuer(store(), b, { name: 'GitHub', vatId: '528282828' }, { count: 2, suggestion: false, lineItems: ['Team'] });
  const dismissed = await seedIssuer(store(), b, { name: 'Old Vendor', vatId: '529292929' });
  await store().update(suggestionsPath(b, dismissed.id), { status: 'dismissed' });
  // Not candidates: invoices with a supplier, invoices of a tool, unread invoices.
  await seedIssuer(store(), b, { name: 'Has Supplier', phone: '0541111111' }, { suggestion: false, over: { supplierKey: '+972541111111', supplierBy: 'hand' } });
  await seedIssuer(store(), b, { name: 'Zoom Clone', vatId: '530303030' }, { suggestion: false, over: { softwareId: 'elsewhere' } });
  await putInvoices(store(), [invoiceDoc(b, null)]);

  assert.deepEqual(await h.call('softwareSync', {}, u), { classified: 4, software: 2, suppliers: 2, remaining: 0 });
  assert.equal(ai.calls.length, 1);
  assert.deepEqual(ai.calls[0], [
    { key: 'email:billing@zoom.example', name: 'Zoom', lineItems: ['Pro plan', 'Extra seat'] },
    { key: 'phone:+972529876543', name: 'Moshe Plumbing', lineItems: [] },
    { key: 'vat:528282828', name: 'GitHub', lineItems: ['Team'] },
    { key: 'vat:529292929', name: 'Old Vendor', lineItems: [] },
  ]);
  const tools = (await h.call('softwareList', {}, u)).items;
  assert.deepEqual(tools.map((t: any) => [t.name, t.hidden, t.cadence, t.docCount]), [['GitHub', false, 'auto', 2], ['Zoom', false, 'auto', 2]]);
  assert.equal(await status(u, zoom.id), 'software');
  for (const d of await invoicesOf(store(), b, [...zoom.docIds, ...github.docIds])) assert.equal(d.softwareId, d.vendorKey === zoom.vendorKey ? zoom.id : github.id);
  assert.ok((await invoicesOf(store(), b, zoom.docIds)).every((d) => d.suggestionId === null));
  assert.deepEqual((await h.call('supplierSuggestionsList', {}, u)).items.map((s: any) => s.id), [plumber.id]);
  assert.equal(await status(u, dismissed.id), 'dismissed');
  const { classifiedAt, ...plumberDecision } = (await decision(u, plumber.id))!;
  assert.deepEqual(plumberDecision, { vendorKey: plumber.vendorKey, class: 'supplier', by: 'ai', generation: 0 });
  assert.ok(classifiedAt);
  assert.equal((await decision(u, zoom.id))?.class, 'software');
});

test('without force decided issuers are not sent again; with nothing new there is no AI call and no quota charge', async () => {
  const u = await fresh();
  await seedIssuer(store(), u.businessId, { name: 'Moshe Plumbing', phone: '0529876543' });
  await h.call('softwareSync', {}, u);
  const quota = async () => (await store().query({ collection: `businesses/${u.businessId}/quotas` }))[0]?.data.used;
  assert.equal(await quota(), 1);
  assert.deepEqual(await h.call('softwareSync', {}, u), { classified: 0, software: 0, suppliers: 0, remaining: 0 });
  assert.equal(ai.calls.length, 1);
  assert.equal(await quota(), 1);
  const later = await seedIssuer(store(), u.businessId, { name: 'Zoom', email: 'billing@zoom.example' });
  assert.deepEqual(await h.call('softwareSync', {}, u), { classified: 1, software: 1, suppliers: 0, remaining: 0 });
  assert.deepEqual(ai.calls[1].map((i) => i.key), [later.vendorKey]);
  assert.equal(await quota(), 2);
});

test(`bounded work: ${SOFTWARE_SYNC_BATCH} issuers per call; forced runs re-send AI decisions (never hand ones) and converge`, async () => {
  const u = await fresh();
  const total = SOFTWARE_SYNC_BATCH + 10;
  const seeded = [];
  for (let i = 0; i < total; i++) seeded.push(await seedIssuer(store(), u.businessId, { name: `Vendor ${i}`, vatId: `5${String(i).padStart(8, '0')}` }));
  const hand = await seedIssuer(store(), u.businessId, { name: 'Hand Picked', email: 'hand@picked.example' });
  await h.call('supplierSuggestionToSoftware', { id: hand.id }, u);
  await h.call('softwareToSupplier', { id: hand.id }, u); // the user's call: it is a supplier

  const loop = async (force: boolean) => {
    const results = [];
    do results.push(await h.call('softwareSync', { force }, u));
    while (results.at(-1).remaining > 0 && results.length < 10);
    return results;
  };
  assert.deepEqual((await loop(false)).map((r) => [r.classified, r.remaining]), [[SOFTWARE_SYNC_BATCH, 10], [10, 0]]);
  assert.equal(new Set(sentKeys()).size, total);
  assert.equal(sentKeys().length, total);

  ai.calls.length = 0;
  ai.softwareNames.add('Vendor 7'); // the AI changes its mind on a re-run
  assert.deepEqual((await loop(true)).map((r) => [r.classified, r.remaining]), [[SOFTWARE_SYNC_BATCH, 10], [10, 0]]);
  assert.equal(sentKeys().length, total, 'each issuer exactly once in the forced run');
  assert.ok(!sentKeys().includes(hand.vendorKey));
  assert.equal(await status(u, seeded[7].id), 'software');
  assert.equal(await status(u, hand.id), 'open');
  assert.equal((await decision(u, seeded[0].id))?.generation, 1);

  ai.calls.length = 0;
  const again = await h.call('softwareSync', { force: true }, u);
  assert.deepEqual([again.classified, again.remaining], [SOFTWARE_SYNC_BATCH, total - 1 - SOFTWARE_SYNC_BATCH], 'a finished forced run lets force start another');
});

test('an AI failure is unavailable with the reason and changes nothing; the next call does the work', async () => {
  const u = await fresh();
  const zoom = await seedIssuer(store(), u.businessId, { name: 'Zoom', email: 'billing@zoom.example' });
  const ok = ai.reply;
  ai.reply = () => ({ ok: false, reason: 'AI reply was cut off (MAX_TOKENS)' });
  await assert.rejects(h.call('softwareSync', {}, u), { code: 'unavailable', message: /AI reply was cut off \(MAX_TOKENS\)\. Nothing was changed/ });
  await assert.rejects(h.call('softwareSync', { force: true }, u), { code: 'unavailable' });
  assert.equal(await store().get(softwarePath(u.businessId, zoom.id)), null);
  assert.equal(await decision(u, zoom.id), undefined);
  assert.equal(await status(u, zoom.id), 'open');
  ai.reply = ok;
  assert.deepEqual(await h.call('softwareSync', {}, u), { classified: 1, software: 1, suppliers: 0, remaining: 0 });
});

test('an issuer the AI leaves out counts as a supplier, so calling again converges', async () => {
  const u = await fresh();
  const a = await seedIssuer(store(), u.businessId, { name: 'Zoom', email: 'billing@zoom.example' });
  const b = await seedIssuer(store(), u.businessId, { name: 'Skipped By AI', phone: '0520000001' });
  ai.reply = (issuers) => ({ ok: true, value: { [issuers[0].key]: 'software' } });
  assert.deepEqual(await h.call('softwareSync', {}, u), { classified: 2, software: 1, suppliers: 1, remaining: 0 });
  assert.equal((await decision(u, b.id))?.class, 'supplier');
  assert.equal(await status(u, a.id), 'software');
  assert.deepEqual(await h.call('softwareSync', {}, u), { classified: 0, software: 0, suppliers: 0, remaining: 0 });
});

test('an issuer the user already made a supplier is not sent, even when a later invoice of it is unassigned', async () => {
  const u = await fresh();
  const s = await seedIssuer(store(), u.businessId, { name: 'Zoom', vatId: '531313131' });
  await h.call('supplierSuggestionsCreate', { ids: [s.id], contact: { [s.id]: { email: 'zoom@example.com' } } }, u);
  // A later invoice of the issuer that the supplier match missed: it joins the (created) suggestion, unassigned.
  await putInvoices(store(), [invoiceDoc(u.businessId, reading({ name: 'Zoom', vatId: '531313131' }), { suggestionId: s.id })]);
  assert.deepEqual(await h.call('softwareSync', { force: true }, u), { classified: 0, software: 0, suppliers: 0, remaining: 0 });
  assert.equal(ai.calls.length, 0);
  assert.deepEqual([(await decision(u, s.id))?.class, (await decision(u, s.id))?.by], ['supplier', 'hand']);
  assert.equal(await status(u, s.id), 'created');
});

test('only the caller business is looked at, and one activity row is written', async () => {
  const u = await fresh();
  const other = await fresh();
  await seedIssuer(store(), other.businessId, { name: 'Zoom', email: 'billing@zoom.example' });
  const mine = await seedIssuer(store(), u.businessId, { name: 'Mine Only', phone: '0520000002' });
  await h.call('softwareSync', { force: true }, u);
  assert.deepEqual(sentKeys(), [mine.vendorKey]);
  const row = (await h.call('listActivity', {}, u)).items.find((x: any) => x.operation === 'softwareSync');
  assert.equal(row.summary, 'software sync (forced): 1 issuer(s) classified, 0 software, 1 supplier(s), 0 remaining');
});

test('a used-up AI quota is 429 resource-exhausted and changes nothing', async () => {
  const q = await createHarness({ env: { QUOTA_AI: '1' }, overrides: { ai: scriptedAi(['Zoom']) } });
  try {
    const st = q.app.services.store;
    await seedIssuer(st, q.owner.businessId, { name: 'First', phone: '0520000003' });
    assert.equal((await q.call('softwareSync')).classified, 1);
    const zoom = await seedIssuer(st, q.owner.businessId, { name: 'Zoom', email: 'billing@zoom.example' });
    await assert.rejects(q.call('softwareSync'), { code: 'resource-exhausted' });
    assert.equal(await st.get(softwarePath(q.owner.businessId, zoom.id)), null);
    assert.equal(await st.get(issuerClassesPath(q.owner.businessId, zoom.id)), null);
  } finally {
    await q.close();
  }
});
