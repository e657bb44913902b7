import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { get, post } from '../../http.ts';
import { paymentSearchTokens, paymentsPath } from '../../../functions/src/domain/payments/payments.ts';
import { createPayment, paymentInput, paymentsEnv, type PaymentsEnv } from './helpers.ts';

const paymentInputFor = (i: number) => paymentInput({ description: `Job number ${i}`, supplierName: `Supplier ${i % 4}` });

let env: PaymentsEnv;
let origin: string;
const ids: Record<string, string> = {};
before(async () => {
  env = await paymentsEnv();
  const { h } = env;
  // Distinct creation times, so "newest first" is observable.
  const make = async (key: string, over: Record<string, unknown>) => {
    ids[key] = (await createPayment(h, { channel: 'link', ...over })).id;
    await new Promise((r) => setTimeout(r, 3));
  };
  await make('plumber', { supplierName: 'Moshe Plumbing', description: 'Bathroom pipes', supplierPhone: '0501111111' });
  await make('painter', { supplierName: 'Rina Paints', description: 'Living room walls', supplierPhone: '0502222222' });
  await make('plumber2', { supplierName: 'Moshe Plumbing', description: 'Kitchen sink', supplierPhone: '+972501111111' });
  await make('mailer', { supplierName: 'Print House', description: 'Flyers for the spring sale', supplierPhone: undefined, supplierEmail: 'Print@Example.com' });
  // The invoice number arrives with the supplier's invoice (another issue); stand in for it.
  const painter = { supplierName: 'Rina Paints', description: 'Living room walls', invoiceNumber: 'INV-2041' };
  await h.app.services.store.update(paymentsPath(h.owner.businessId, ids.painter), { invoiceNumber: painter.invoiceNumber, search: paymentSearchTokens(painter) });
  await h.call('markPaid', { paymentId: ids.plumber });
  origin = await h.listen();
});
after(() => env.close());

const list = (input: Record<string, unknown> = {}) => env.h.call('paymentsList', input);
const idsOf = (r: any) => r.items.map((i: any) => i.id);

test('lists newest first with {items, total, limit, offset}; limit defaults to 50', async () => {
  const r = await list();
  assert.deepEqual(idsOf(r), [ids.mailer, ids.plumber2, ids.painter, ids.plumber]);
  assert.equal(r.total, 4);
  assert.equal(r.limit, 50);
  assert.equal(r.offset, 0);
  const row = r.items[0];
  assert.equal(row.supplierName, 'Print House');
  assert.equal(row.supplierKey, 'print@example.com');
  assert.equal(row.invoice, null);
  assert.equal(row.link.includes('/pay/'), true);
  assert.equal('payout' in row, false, 'rows carry no payout details');
});

test('pages with limit and offset; total counts every match', async () => {
  const r = await list({ limit: 2, offset: 1 });
  assert.deepEqual(idsOf(r), [ids.plumber2, ids.painter]);
  assert.equal(r.total, 4);
  assert.deepEqual([r.limit, r.offset], [2, 1]);
  assert.deepEqual(idsOf(await list({ offset: 4 })), []);
});

test('limit over 200, zero or negative, and a negative offset are invalid-argument', async () => {
  await assert.rejects(list({ limit: 201 }), { code: 'invalid-argument', message: /^limit: must be at most 200/ });
  await assert.rejects(list({ limit: -1 }), { code: 'invalid-argument', message: /^limit:/ });
  await assert.rejects(list({ limit: 0 }), { code: 'invalid-argument', message: /^limit:/ });
  await assert.rejects(list({ offset: -1 }), { code: 'invalid-argument', message: /^offset:/ });
  assert.equal((await list({ limit: 200 })).limit, 200);
});

test('filters by status', async () => {
  assert.deepEqual(idsOf(await list({ status: 'paid' })), [ids.plumber]);
  const sent = await list({ status: 'sent' });
  assert.deepEqual(idsOf(sent), [ids.mailer, ids.plumber2, ids.painter]);
  assert.equal(sent.total, 3);
  assert.deepEqual(idsOf(await list({ status: 'canceled' })), []);
});

test('filters by supplierKey, given in any accepted form', async () => {
  assert.deepEqual(idsOf(await list({ supplierKey: '050-111-1111' })), [ids.plumber2, ids.plumber]);
  assert.deepEqual(idsOf(await list({ supplierKey: '+972501111111', status: 'sent' })), [ids.plumber2]);
  assert.deepEqual(idsOf(await list({ supplierKey: 'PRINT@example.com' })), [ids.mailer]);
  await assert.rejects(list({ supplierKey: 'not a phone' }), { code: 'invalid-argument', message: /^supplierKey:/ });
});

test('q searches supplier name, description and invoice number by word beginnings; every word must match', async () => {
  assert.deepEqual(idsOf(await list({ q: 'moshe' })), [ids.plumber2, ids.plumber]);
  assert.deepEqual(idsOf(await list({ q: 'Plumb kitch' })), [ids.plumber2]);
  assert.deepEqual(idsOf(await list({ q: 'flyers' })), [ids.mailer]);
  assert.deepEqual(idsOf(await list({ q: '2041' })), [ids.painter]);
  assert.deepEqual(idsOf(await list({ q: 'moshe', status: 'paid' })), [ids.plumber]);
  assert.deepEqual(idsOf(await list({ q: 'moshe sink', supplierKey: '0501111111', status: 'sent' })), [ids.plumber2]);
  assert.deepEqual(idsOf(await list({ q: 'zebra' })), []);
  const multi = await list({ q: 'moshe pipes', limit: 1 });
  assert.deepEqual([idsOf(multi), multi.total], [[ids.plumber], 1]);
});

test('q reads only the matching documents, never the whole collection', async () => {
  const { h } = env;
  for (let i = 0; i < 25; i++) await createPayment(h, { channel: 'link', supplierName: `Filler ${i}`, description: 'Office chairs' });
  const all = await post(origin, '/v1/paymentsList', { limit: 200 }, h.owner.apiKey);
  const one = await post(origin, '/v1/paymentsList', { q: 'rina', limit: 200 }, h.owner.apiKey);
  assert.equal(one.status, 200);
  assert.deepEqual(idsOf(one.body.result), [ids.painter]);
  const reads = (r: typeof one) => Number(r.headers.get('x-doc-reads'));
  assert.ok(reads(all) >= 29, `a full list reads every row (${reads(all)})`);
  assert.ok(reads(one) <= 6, `a q search read ${reads(one)} documents`);
  const two = await post(origin, '/v1/paymentsList', { q: 'rina walls', limit: 200 }, h.owner.apiKey);
  assert.deepEqual(idsOf(two.body.result), [ids.painter]);
  assert.ok(reads(two) <= 6, `a two-word q search read ${reads(two)} documents`);
});

test("another business's payments are not listed", async () => {
  const { h } = env;
  const other = await h.newBusiness('Other');
  await createPayment(h, { channel: 'link', supplierName: 'Moshe Plumbing' }, other);
  const mine = await list({ q: 'moshe' });
  assert.deepEqual(idsOf(mine), [ids.plumber2, ids.plumber]);
  assert.equal((await h.call('paymentsList', {}, other)).total, 1);
});

test('GET with query-string parameters', async () => {
  const { h } = env;
  const res = await get(origin, '/v1/paymentsList?status=paid&limit=5', h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.deepEqual(idsOf(res.body.result), [ids.plumber]);
  assert.equal(res.body.result.limit, 5);
  const bad = await get(origin, '/v1/paymentsList?limit=500', h.owner.apiKey);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^limit:/);
});

test('pageToken walks the list a page at a time and agrees with one big page', async () => {
  const { h } = env;
  const biz = await h.newBusiness('Pager');
  for (let i = 0; i < 23; i++) await h.call('createPayment', { ...paymentInputFor(i), channel: 'link' }, biz);
  for (const input of [{}, { q: 'job' }, { q: 'job number' }, { payoutChanged: false }]) {
    const all = (await h.call('paymentsList', { ...input, limit: 200 }, biz)).items.map((i: any) => i.id);
    const walked: string[] = [];
    let token: string | undefined;
    do {
      const r = await h.call('paymentsList', { ...input, limit: 5, ...(token ? { pageToken: token } : {}) }, biz);
      walked.push(...r.items.map((i: any) => i.id));
      token = r.nextPageToken ?? undefined;
    } while (token);
    assert.deepEqual(walked, all, JSON.stringify(input));
  }
  await assert.rejects(h.call('paymentsList', { status: 'paid', pageToken: (await h.call('paymentsList', { limit: 5 }, biz)).nextPageToken }, biz), { code: 'invalid-argument', message: /^pageToken/ });
});
