import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, pdf, reading, uploadBody, type InvoicesEnv } from './helpers.ts';
import { get, post } from '../../http.ts';
import { b64 } from '../../fakes/pdfs.ts';
import { invoicesPath, type InvoiceDoc } from '../../../functions/src/domain/invoices/invoices.ts';
import { invoiceSearchTokens, newInvoiceDoc } from '../../../functions/src/domain/invoices/invoiceDocs.ts';
import { EQUALITY_FILTERS, listQuery, storeFilters } from '../../../functions/src/operations/invoices/invoicesList.ts';
import { indexEntries, loadIndexes, missingIndex } from '../../../functions/src/adapters/indexCoverage.ts';
import { authenticate } from '../../../functions/src/core/auth.ts';
import { execute } from '../../../functions/src/core/execute.ts';

let env: InvoicesEnv;
const ids: Record<string, string> = {};
const T0 = Date.parse('2025-06-01T00:00:00Z');

/** Seeds one document straight into the store, with the fields the filters look at. */
async function seed(name: string, over: Partial<InvoiceDoc>, minute: number, businessId = env.h.owner.businessId) {
  const docId = `doc-${name}`;
  const doc = newInvoiceDoc(
    { docId, businessId, fileId: `file-${name}`, fileName: `${name}.pdf`, contentType: 'application/pdf', size: 10, sha256: name.padEnd(64, '0'), source: 'upload', createdAtMs: T0 + minute * 60_000 },
    { readingStatus: 'read', folderId: 'general', ...over },
  );
  doc.search = invoiceSearchTokens(doc);
  await env.h.app.services.store.set(invoicesPath(businessId, docId), { ...doc });
  ids[name] = docId;
}

before(async () => {
  env = await invoicesEnv();
  const r = (issuer: string, number: string, date: string) => reading({ issuer: { name: issuer }, number, date });
  await seed('acmeJan', { reading: r('Acme Printing', 'A-100', '2025-01-10'), date: '2025-01-10', category: 'office_supplies', categoryBy: 'ai', effectivePayMark: 'paid_card' }, 1);
  await seed('acmeFeb', { reading: r('Acme Printing', 'A-200', '2025-02-10'), date: '2025-02-10', effectivePayMark: 'unpaid', note: 'urgent reprint' }, 2);
  await seed('cloud', { reading: r('Cloudy Hosting', 'C-1', '2025-02-20'), date: '2025-02-20', category: 'hosting_cloud', categoryBy: 'rule', folderId: 'card-4242', effectivePayMark: 'paid_card' }, 3);
  await seed('mail', {
    source: 'mailbox',
    reading: r('Bezeq', 'B-9', '2025-03-01'),
    date: '2025-03-01',
    mailbox: { accountId: 'acc1', from: 'bills@bezeq.example', subject: 'Your March bill', receivedAt: '2025-03-01T08:00:00Z', messageId: 'm1', body: false },
    supplierKey: '+972501234567',
    supplierBy: 'auto',
  }, 4);
  await seed('supplier', { source: 'supplier', paymentId: 'pay1', reading: r('Dana Cohen', 'D-5', '2025-03-05'), date: '2025-03-05', supplierKey: '+972501234567', effectivePayMark: 'paid_transfer' }, 5);
  await seed('unread', { readingStatus: 'unread', reading: null, date: '2025-06-01', fileName: 'scan-0001.pdf' }, 6);
  const other = await env.h.newBusiness('Other');
  await seed('foreign', { reading: r('Acme Printing', 'A-300', '2025-02-11'), date: '2025-02-11' }, 7, other.businessId);
});
after(() => env.close());

const list = (input: Record<string, unknown> = {}) => env.h.call('invoicesList', input);
const names = (r: any) => r.items.map((i: any) => i.docId.replace('doc-', ''));

test('newest first, {items, total, limit, offset}, only this business', async () => {
  const r = await list();
  assert.deepEqual(names(r), ['unread', 'supplier', 'mail', 'cloud', 'acmeFeb', 'acmeJan']);
  assert.deepEqual([r.total, r.limit, r.offset], [6, 50, 0]);
  const row = r.items.find((i: any) => i.docId === ids.mail);
  assert.deepEqual([row.issuerName, row.number, row.mailSubject, row.source, row.supplierKey], ['Bezeq', 'B-9', 'Your March bill', 'mailbox', '+972501234567']);
  assert.equal('url' in row, false, 'rows carry no download URL (one extra read per row); invoiceGet has it');
});

test('pages with limit and offset; limit is at most 200', async () => {
  const r = await list({ limit: 2, offset: 1 });
  assert.deepEqual(names(r), ['supplier', 'mail']);
  assert.equal(r.total, 6);
  await assert.rejects(list({ limit: 201 }), { code: 'invalid-argument', message: /^limit: must be at most 200/ });
  await assert.rejects(list({ offset: -1 }), { code: 'invalid-argument', message: /^offset:/ });
});

test('filters combine: folderId, category ("" = uncategorized), supplierKey, payMark (the mark in force), source', async () => {
  assert.deepEqual(names(await list({ folderId: 'card-4242' })), ['cloud']);
  assert.deepEqual(names(await list({ category: 'office_supplies' })), ['acmeJan']);
  assert.deepEqual(names(await list({ category: '' })), ['unread', 'supplier', 'mail', 'acmeFeb']);
  assert.deepEqual(names(await list({ supplierKey: '050-123-4567' })), ['supplier', 'mail']);
  assert.deepEqual(names(await list({ payMark: 'paid_card' })), ['cloud', 'acmeJan']);
  assert.deepEqual(names(await list({ payMark: '' })).length, 6, 'payMark "" is no filter');
  assert.deepEqual(names(await list({ source: 'mailbox' })), ['mail']);
  assert.deepEqual(names(await list({ source: 'supplier' })), ['supplier']);
  assert.deepEqual(names(await list({ folderId: 'general', payMark: 'unpaid', category: '' })), ['unread', 'mail', 'acmeFeb']);
  assert.deepEqual(names(await list({ supplierKey: '+972501234567', source: 'mailbox', payMark: 'unpaid' })), ['mail']);
  await assert.rejects(list({ category: 'nonsense' }), { code: 'invalid-argument', message: /^category: "nonsense" is not a category id/ });
  await assert.rejects(list({ supplierKey: 'not a key' }), { code: 'invalid-argument', message: /^supplierKey:/ });
  await assert.rejects(list({ source: 'fax' }), { code: 'invalid-argument', message: /^source:/ });
});

test('q matches word beginnings of file name, issuer, invoice number, note and mail subject; every word must match', async () => {
  assert.deepEqual(names(await list({ q: 'acme' })), ['acmeFeb', 'acmeJan']);
  assert.deepEqual(names(await list({ q: 'A-200' })), ['acmeFeb']);
  assert.deepEqual(names(await list({ q: 'reprint' })), ['acmeFeb']);
  assert.deepEqual(names(await list({ q: 'march' })), ['mail']);
  assert.deepEqual(names(await list({ q: 'scan' })), ['unread']);
  assert.deepEqual(names(await list({ q: 'Acme urgent' })), ['acmeFeb']);
  assert.deepEqual(names(await list({ q: 'acme', category: 'office_supplies' })), ['acmeJan']);
  assert.deepEqual(names(await list({ q: 'nothing-like-this' })), []);
  const paged = await list({ q: 'acme print', limit: 1, offset: 1 });
  assert.deepEqual([names(paged), paged.total], [['acmeJan'], 2]);
});

test('from/to filter the invoice date (inclusive), newest invoice date first; invalid dates and from > to are invalid-argument', async () => {
  assert.deepEqual(names(await list({ from: '2025-02-01', to: '2025-02-28' })), ['cloud', 'acmeFeb']);
  assert.deepEqual(names(await list({ from: '2025-03-01' })), ['unread', 'supplier', 'mail']);
  assert.deepEqual(names(await list({ to: '2025-01-10' })), ['acmeJan']);
  assert.deepEqual(names(await list({ to: '2025-02-28', q: 'acme', payMark: 'unpaid' })), ['acmeFeb']);
  await assert.rejects(list({ from: '2025-02-30' }), { code: 'invalid-argument', message: /^from: "2025-02-30" is not a real date/ });
  await assert.rejects(list({ to: '03/01/2025' }), { code: 'invalid-argument', message: /^to: expected YYYY-MM-DD/ });
  await assert.rejects(list({ from: '2025-03-02', to: '2025-03-01' }), { code: 'invalid-argument', message: /^from: 2025-03-02 is after to/ });
});

/** Every combination of the equality filters × {no q, q} × {no range, range}: 128 query shapes. */
function combinations() {
  const values: Record<string, string> = { folderId: 'general', category: 'office_supplies', supplierKey: '+972501234567', payMark: 'paid_card', source: 'upload' };
  const out: Record<string, string>[] = [];
  for (let mask = 0; mask < 1 << EQUALITY_FILTERS.length; mask++) {
    for (const q of [undefined, 'acme']) {
      for (const range of [false, true]) {
        const input: Record<string, string> = {};
        EQUALITY_FILTERS.forEach(([name], i) => {
          if (mask & (1 << i)) input[name] = values[name];
        });
        if (q) input.q = q;
        if (range) Object.assign(input, { from: '2025-01-01', to: '2025-12-31' });
        out.push(input);
      }
    }
  }
  return out;
}

test('every filter combination the code issues has its index in firestore.indexes.json', () => {
  const indexes = loadIndexes();
  const combos = combinations();
  assert.equal(combos.length, 128);
  for (const c of combos) {
    const { q: word, ...filters } = c;
    const q = listQuery('b1', storeFilters(filters as any, word).store);
    assert.equal(missingIndex(q, indexes), null, JSON.stringify(c));
  }
});

test('every filter combination runs under strict indexes (also with a multi-word q)', async () => {
  for (const c of combinations()) {
    await list(c);
    if (c.q) await list({ ...c, q: 'acme printing' });
  }
});

test('reads per page: the page itself plus one count read; q reads only documents holding its longest word', async () => {
  for (let i = 0; i < 120; i++) await seed(`bulk${i}`, { reading: reading({ issuer: { name: i % 10 === 0 ? 'Rare Vendor' : 'Common Vendor' } }), date: '2025-05-01' }, 100 + i);
  const caller = await authenticate(env.h.app.services.store, `Bearer ${env.h.owner.apiKey}`, Date.now());
  const reads = async (input: Record<string, unknown>) => {
    const { meter } = await execute(env.h.registry.get('invoicesList')!, input, caller, env.h.app.services, 'test');
    return meter.reads;
  };
  assert.equal(await reads({}), 50 + 1);
  assert.equal(await reads({ limit: 10 }), 10 + 1);
  // Offsets are billed: the skipped documents count too.
  assert.equal(await reads({ limit: 10, offset: 40 }), 50 + 1);
  // One word: the matching documents (12 hold "rare") and the count.
  assert.equal(await reads({ q: 'rare' }), 12 + 1, '12 documents hold "rare"');
  // Several words: each word's matches are counted (one read each here), then the rarest word's documents are scanned.
  assert.equal(await reads({ q: 'rare vendor' }), 1 + 1 + 12);
  assert.deepEqual((await list({ q: 'vendor rare', limit: 200 })).total, 12);
  assert.equal(await reads({ folderId: 'card-4242' }), 1 + 1);
  assert.equal(await reads({ folderId: 'no-such' }), 1 + 1, 'an empty page still costs one read, and the count one');
});

test('pageToken walks the list one page at a time, at the cost of a page, and agrees with offset paging', async () => {
  const all = (await list({ limit: 200 })).items.map((i: any) => i.docId);
  assert.ok(all.length > 100);
  for (const input of [{}, { q: 'vendor' }, { q: 'vendor common' }, { folderId: 'general', q: 'vendor', payMark: 'unpaid' }]) {
    const expected = (await list({ ...input, limit: 200 })).items.map((i: any) => i.docId);
    const walked: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const r = await list({ ...input, limit: 7, ...(token ? { pageToken: token } : {}) });
      walked.push(...r.items.map((i: any) => i.docId));
      token = r.nextPageToken ?? undefined;
      pages++;
    } while (token && pages < 100);
    assert.deepEqual(walked, expected, JSON.stringify(input));
  }
  const caller = await authenticate(env.h.app.services.store, `Bearer ${env.h.owner.apiKey}`, Date.now());
  const run = (input: Record<string, unknown>) => execute(env.h.registry.get('invoicesList')!, input, caller, env.h.app.services, 'test');
  let token = (await list({ limit: 10 })).nextPageToken;
  for (let i = 0; i < 5; i++) {
    const { result, meter } = await run({ limit: 10, pageToken: token });
    assert.ok(meter.reads <= 10 + 2, `page ${i + 2} read ${meter.reads} documents`);
    token = (result as any).nextPageToken;
  }
  // Two-word q: a later page skips the counts too.
  const first = await list({ q: 'vendor common', limit: 10 });
  assert.equal(first.totalIsEstimate, true);
  const second = await run({ q: 'vendor common', limit: 10, pageToken: first.nextPageToken });
  assert.ok(second.meter.reads <= 10 + 2, `read ${second.meter.reads}`);
});

test('a page token belongs to its filters; with a token, offset must be 0; a forged token is refused', async () => {
  const { nextPageToken } = await list({ limit: 2 });
  await assert.rejects(list({ limit: 2, folderId: 'general', pageToken: nextPageToken }), { code: 'invalid-argument', message: /^pageToken: belongs to a list with other filters/ });
  await assert.rejects(list({ limit: 2, offset: 2, pageToken: nextPageToken }), { code: 'invalid-argument', message: /^offset: must be 0/ });
  await assert.rejects(list({ pageToken: 'bm90LWEtdG9rZW4' }), { code: 'invalid-argument', message: /^pageToken: not a page token/ });
  await assert.rejects(list({ pageToken: 'a b' }), { code: 'invalid-argument', message: /^pageToken/ });
});

test('totals: exact without filters in memory; an upper bound flagged totalIsEstimate when the scan stopped early', async () => {
  const exact = await list({ q: 'vendor' });
  assert.equal(exact.totalIsEstimate, false);
  const small = await list({ q: 'rare vendor' });
  assert.deepEqual([small.total, small.totalIsEstimate], [12, false], 'a scan that reached the end knows the total');
  const paged = await list({ q: 'vendor common', limit: 5 });
  assert.equal(paged.totalIsEstimate, true);
  assert.ok(paged.total >= 108, 'an upper bound never undercounts');
});

test('an invoice write costs at most 2,000 index entries, even with a long note and a long issuer', async () => {
  const indexes = loadIndexes();
  const long = Array.from({ length: 400 }, (_, i) => `word${i}longer${i}`).join(' ');
  const worst = newInvoiceDoc(
    { docId: 'w', businessId: 'b', fileId: 'f', fileName: `${long.slice(0, 180)}.pdf`, contentType: 'application/pdf', size: 1, sha256: 'x'.repeat(64), source: 'mailbox', createdAtMs: 1 },
    { readingStatus: 'read', folderId: 'general', note: long, reading: reading({ issuer: { name: long.slice(0, 200) }, number: 'INV-2024-000123456789' }), supplierKey: '+972501234567', category: 'software', effectivePayMark: 'unpaid' },
  );
  worst.search = invoiceSearchTokens(worst);
  const entries = indexEntries('invoices', { ...worst }, indexes);
  assert.ok(entries.total <= 2000, `worst case: ${JSON.stringify(entries)}`);
  const typical = newInvoiceDoc(
    { docId: 't', businessId: 'b', fileId: 'f', fileName: 'invoice-march.pdf', contentType: 'application/pdf', size: 1, sha256: 'y'.repeat(64), source: 'upload', createdAtMs: 1 },
    { readingStatus: 'read', folderId: 'general', reading: reading({ issuer: { name: 'Acme Printing Ltd' }, number: 'A-1024' }) },
  );
  typical.search = invoiceSearchTokens(typical);
  assert.ok(indexEntries('invoices', { ...typical }, indexes).total < 500);
});

test('over HTTP: upload, then list with GET and POST; responses report their document reads', async () => {
  const origin = await env.h.listen();
  const key = env.h.owner.apiKey;
  const bytes = await pdf();
  env.ai.script(bytes, reading({ issuer: { name: 'Http Vendor', vatId: '530000001' }, number: 'ZX-9931' }));
  const up = await post(origin, '/v1/uploadInvoiceDoc', uploadBody(bytes, { fileName: 'via-http.pdf' }), key);
  assert.equal(up.status, 200);
  assert.equal(up.body.ok, true);
  assert.equal(up.body.result.skipped, false);
  const docId = up.body.result.docId;
  const file = await fetch(up.body.result.url.replace(/^https?:\/\/[^/]+/, origin));
  assert.equal(file.status, 200);
  assert.ok(Buffer.from(await file.arrayBuffer()).equals(bytes));

  const viaGet = await get(origin, '/v1/invoicesList?q=http&limit=5', key);
  assert.equal(viaGet.status, 200);
  assert.deepEqual(viaGet.body.result.items.map((i: any) => i.docId), [docId]);
  assert.ok(Number(viaGet.headers.get('x-doc-reads')) > 0);
  const viaPost = await post(origin, '/v1/invoicesList', { q: 'ZX-9931', from: '2025-01-01' }, key);
  assert.deepEqual(viaPost.body.result.items.map((i: any) => i.docId), [docId]);

  const dup = await post(origin, '/v1/uploadInvoiceDoc', uploadBody(bytes), key);
  assert.deepEqual(dup.body.result, { skipped: true, duplicateOf: docId, reason: 'sha256' });
  const bad = await post(origin, '/v1/uploadInvoiceDoc', { fileName: 'x.gif', mimeType: 'image/gif', dataBase64: b64(Buffer.from('GIF89a')) }, key);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid-argument');
  assert.match(bad.body.error.message, /^mimeType:/);
  const badDate = await get(origin, '/v1/invoicesList?from=2025-13-01', key);
  assert.equal(badDate.status, 400);
});
