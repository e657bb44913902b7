import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../functions/src/config.ts';
import { createApp } from '../functions/src/app.ts';
import { silentLogger } from '../functions/src/core/logger.ts';
import { createBusiness } from '../functions/src/domain/business.ts';
import { authenticate, issueApiKey } from '../functions/src/core/auth.ts';
import { execute } from '../functions/src/core/execute.ts';
import { registry } from '../functions/src/operations/index.ts';
import { createHttpHandler } from '../functions/src/surfaces/http/handler.ts';
import { invoicesPath, PAY_MARKS } from '../functions/src/domain/invoices/invoices.ts';
import { invoiceSearchTokens, newInvoiceDoc } from '../functions/src/domain/invoices/invoiceDocs.ts';
import { vendorKeyOf } from '../functions/src/domain/invoices/vendorKeys.ts';
import type { Ai } from '../functions/src/ports/ai.ts';
import type { DocStore } from '../functions/src/ports/store.ts';
import { indexEntries, loadIndexes } from '../functions/src/adapters/indexCoverage.ts';

/**
 * `node bench/invoicesList.ts` (part of `npm run bench`): what an invoice costs.
 * 1. Document reads of one invoicesList page over 10,000 invoices (seeded straight into the store in
 *    batches of 500), with filters, with q and with page tokens. Counted by the store's meter for the
 *    operation alone, and by the HTTP x-doc-reads header (which adds the key and membership lookups).
 * 2. Index entries one invoice write makes under Firestore's model (the project's own index file).
 * 3. p50/p95 latency of invoicesList on SQLite at 100,000 invoices, next to a raw indexed SQLite query
 *    that returns the same page.
 * Prints tables with targets beside them; asserts nothing.
 */
const N = Number(process.env.BENCH_INVOICES ?? 10_000);
const N_LATENCY = Number(process.env.BENCH_INVOICES_LATENCY ?? 100_000);
const noAi = { configured: false } as unknown as Ai;
const folders = ['general', 'petty-cash', 'card-4242', 'card-1111', 'f-projects'];
const t0 = Date.parse('2024-01-01T00:00:00Z');

/** One invoice of the synthetic set: 100 issuers (one in 10 is "Rare"); folders, categories and marks cycle. */
function invoice(b: string, i: number) {
  const v = i % 100;
  const day = new Date(t0 + (i % 730) * 86_400_000).toISOString().slice(0, 10);
  const reading = {
    issuer: { name: `${v % 10 === 0 ? 'Rare' : 'Common'} Vendor ${String(v).padStart(3, '0')}`, vatId: String(510_000_000 + v), email: null, phone: null },
    docType: 'tax_invoice' as const,
    number: `INV-${i}`,
    date: day,
    totalMinor: 1000 + i,
    currency: 'ILS' as const,
    vatMinor: 0,
    payMethod: null,
    cardEnding: null,
    lineItems: [],
    bank: null,
    allocationNumber: null,
  };
  const doc = newInvoiceDoc(
    { docId: `inv${String(i).padStart(6, '0')}`, businessId: b, fileId: `f${i}`, fileName: `invoice-${i}.pdf`, contentType: 'application/pdf', size: 1000, sha256: `sha${i}`, source: i % 3 === 0 ? 'mailbox' : 'upload', createdAtMs: t0 + i * 60_000 },
    {
      reading,
      readingStatus: 'read',
      vendorKey: vendorKeyOf(reading),
      date: day,
      folderId: folders[i % folders.length],
      folderBy: 'default',
      category: i % 4 === 0 ? 'software' : '',
      categoryBy: i % 4 === 0 ? 'ai' : null,
      effectivePayMark: PAY_MARKS[i % 3],
      supplierKey: v === 7 ? '+972501234567' : null,
    },
  );
  doc.search = invoiceSearchTokens(doc);
  return doc;
}

async function seed(store: DocStore, b: string, n: number): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < n; start += 500) {
    const batch = store.batch();
    for (let i = start; i < Math.min(n, start + 500); i++) {
      const doc = invoice(b, i);
      batch.set(invoicesPath(b, doc.docId), { ...doc });
    }
    await batch.commit();
  }
  return performance.now() - started;
}

async function openApp(dir: string) {
  const app = await createApp(loadConfig({ DATA_DIR: dir, STRICT_INDEXES: '1', LOG_LEVEL: 'error' }), { logger: silentLogger, ai: noAi });
  const { store, clock, ids } = app.services;
  const biz = await createBusiness(store, ids, { name: 'Bench', email: 'bench@example.com' }, clock.now());
  const { apiKey } = await issueApiKey(store, { businessId: biz.businessId, userId: biz.userId, name: 'bench' }, clock.now());
  const caller = await authenticate(store, `Bearer ${apiKey}`, clock.now());
  return { app, b: biz.businessId, apiKey, caller };
}

const table = (head: string[], rows: string[][]) => {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
};
const op = registry.get('invoicesList')!;

// 1. Reads per page ---------------------------------------------------------------------------
{
  const dir = mkdtempSync(join(tmpdir(), 'bfo-bench-invoices-'));
  const { app, b, apiKey, caller } = await openApp(dir);
  try {
    const seedMs = await seed(app.services.store, b, N);
    const http = createHttpHandler(app, registry);
    const cases: [string, Record<string, unknown>][] = [
      ['no filter, limit 50', {}],
      ['no filter, limit 200', { limit: 200 }],
      ['no filter, offset 1000', { offset: 1000 }],
      ['folderId', { folderId: 'card-4242' }],
      ['folderId + category + payMark', { folderId: 'general', category: 'software', payMark: 'unpaid' }],
      ['supplierKey (100 matches)', { supplierKey: '+972501234567' }],
      ['source + from/to (one month)', { source: 'upload', from: '2024-03-01', to: '2024-03-31' }],
      ['q one word, 1,000 matches ("rare")', { q: 'rare' }],
      ['q one word, 100 matches ("007")', { q: '007' }],
      ['q two words, 1 match ("INV-4321": inv, 4321)', { q: 'INV-4321' }],
      ['q two words, rarest has 1,000 matches ("rare vendor")', { q: 'rare vendor' }],
      ['q + folderId + from/to', { q: 'rare', folderId: 'general', from: '2024-01-01', to: '2024-12-31' }],
    ];
    const rows: string[][] = [];
    for (const [label, input] of cases) {
      const { result, meter } = await execute(op, input, caller, app.services, 'bench');
      const query = new URLSearchParams(Object.entries(input).map(([k, v]): [string, string] => [k, String(v)])).toString();
      const res = await http({ method: 'GET', path: '/v1/invoicesList', query, headers: { authorization: `Bearer ${apiKey}` }, body: undefined });
      const r = result as { items: unknown[]; total: number; totalIsEstimate: boolean };
      rows.push([label, String(r.items.length), `${r.total}${r.totalIsEstimate ? ' (est.)' : ''}`, String(meter.reads), String(res.headers['x-doc-reads'])]);
    }
    // Page 21 (items 1,001-1,050) by page token: walk there, then measure the one page.
    for (const [label, input] of [['page 21 by pageToken, no filter', {}], ['page 21 by pageToken, q "vendor common"', { q: 'vendor common' }]] as const) {
      let token: string | null = null;
      for (let p = 0; p < 20; p++) token = ((await execute(op, { ...input, ...(token ? { pageToken: token } : {}) }, caller, app.services, 'bench')).result as any).nextPageToken;
      const { result, meter } = await execute(op, { ...input, pageToken: token }, caller, app.services, 'bench');
      const r = result as { items: unknown[]; total: number; totalIsEstimate: boolean };
      rows.push([label, String(r.items.length), `${r.total}${r.totalIsEstimate ? ' (est.)' : ''}`, String(meter.reads), '']);
    }
    console.log(`invoicesList reads per page on ${N.toLocaleString('en')} invoices (seeded in ${(seedMs / 1000).toFixed(1)} s); targets: q two words (rarest has 1,000 matches) <= 60; page 21 by pageToken with no filter = page size + 2; a page filtered in memory (the second pageToken row) reads what it scans, no target`);
    table(['case', 'items', 'total', 'reads (op)', 'x-doc-reads (HTTP)'], rows);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// 2. Index entries per write -------------------------------------------------------------------
{
  const indexes = loadIndexes();
  const typical = invoice('b', 4321);
  const note = Array.from({ length: 300 }, (_, i) => `remark${i} detail${i}`).join(' ');
  const worst = newInvoiceDoc(
    { docId: 'w', businessId: 'b', fileId: 'f', fileName: `${note.slice(0, 200)}.pdf`, contentType: 'application/pdf', size: 1, sha256: 'x'.repeat(64), source: 'mailbox', createdAtMs: 1 },
    { ...typical, note, reading: { ...typical.reading!, issuer: { ...typical.reading!.issuer, name: note.slice(0, 200) }, number: 'INV-2024-000123456789' }, supplierKey: '+972501234567', category: 'software' },
  );
  worst.mailbox = { accountId: 'a', from: 'x@example.com', subject: note.slice(0, 300), receivedAt: '2024-01-01T00:00:00Z', messageId: 'm', body: false };
  worst.search = invoiceSearchTokens(worst);
  const rows = [typical, worst].map((d, i) => {
    const e = indexEntries('invoices', { ...d }, indexes);
    return [i ? 'worst case (long note, issuer, subject)' : 'typical invoice', String(d.search.length), String(e.single), String(e.composite), String(e.total)];
  });
  console.log('\nindex entries per invoice write (Firestore model, firestore.indexes.json); target: worst <= 2,000 (was about 26,000)');
  table(['invoice', 'search tokens', 'single-field', 'composite', 'total'], rows);
}

// 3. Latency at 100,000 invoices --------------------------------------------------------------
{
  const dir = mkdtempSync(join(tmpdir(), 'bfo-bench-invoices-'));
  const { app, b, caller } = await openApp(dir);
  try {
    // Seeded in one SQLite transaction beside the adapter (its row format: path, parent, collection, JSON, version).
    const started = performance.now();
    const db = new DatabaseSync(join(dir, 'store.sqlite'));
    const parent = `businesses/${b}/invoices`;
    const base = (db.prepare(`SELECT value FROM meta WHERE key = 'version'`).get() as { value: number }).value;
    db.exec('BEGIN IMMEDIATE');
    const ins = db.prepare('INSERT INTO docs (path, parent, collection_id, data, version) VALUES (?, ?, ?, ?, ?)');
    for (let i = 0; i < N_LATENCY; i++) {
      const doc = invoice(b, i);
      ins.run(`${parent}/${doc.docId}`, parent, 'invoices', JSON.stringify(doc), base + i + 1);
    }
    db.prepare(`UPDATE meta SET value = ? WHERE key = 'version'`).run(base + N_LATENCY);
    db.exec('COMMIT');
    const seedMs = performance.now() - started;

    const rank = (f: string) => `(CASE json_type(data, '$."${f}"') WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'integer' THEN 2 WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 END)`;
    const order = `${rank('createdAtMs')} DESC, json_extract(data, '$."createdAtMs"') DESC`;
    const folder = `${rank('folderId')} = 3 AND json_extract(data, '$."folderId"') = ?`;
    // The raw side answers the same question as the operation: the page (parsed) and the total.
    const rawPage = (where: string, args: string[]) => () => {
      const rows = db.prepare(`SELECT path, data FROM docs WHERE parent = ? AND collection_id = 'invoices'${where} ORDER BY ${order} LIMIT 50`).all(parent, ...args) as { data: string }[];
      const items = rows.map((r) => JSON.parse(r.data));
      const total = db.prepare(`SELECT count(*) AS n FROM docs WHERE parent = ? AND collection_id = 'invoices'${where}`).get(parent, ...args);
      return { items, total };
    };
    const cases: [string, Record<string, unknown>, () => unknown][] = [
      ['newest 50, with total', {}, rawPage('', [])],
      ['folderId, newest 50, with total', { folderId: 'card-4242' }, rawPage(` AND ${folder}`, ['card-4242'])],
    ];
    const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
    const time = async (fn: () => unknown) => {
      for (let i = 0; i < 20; i++) await fn();
      const ms: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t = performance.now();
        await fn();
        ms.push(performance.now() - t);
      }
      return { p50: pct(ms, 0.5), p95: pct(ms, 0.95) };
    };
    const rows: string[][] = [];
    for (const [label, input, rawQuery] of cases) {
      const viaOp = await time(() => execute(op, input, caller, app.services, 'bench'));
      const viaRaw = await time(rawQuery);
      rows.push([label, viaOp.p50.toFixed(2), viaOp.p95.toFixed(2), viaRaw.p50.toFixed(2), viaRaw.p95.toFixed(2), (viaOp.p50 / viaRaw.p50).toFixed(2)]);
    }
    // Later pages carry the total in their token, so a page costs the page alone.
    let token: string | null = null;
    for (let p = 0; p < 3; p++) token = ((await execute(op, { ...(token ? { pageToken: token } : {}) }, caller, app.services, 'bench')).result as any).nextPageToken;
    const byToken = await time(() => execute(op, { pageToken: token }, caller, app.services, 'bench'));
    const rawOnly = await time(() => (db.prepare(`SELECT path, data FROM docs WHERE parent = ? AND collection_id = 'invoices' ORDER BY ${order} LIMIT 50 OFFSET 150`).all(parent) as { data: string }[]).map((r) => JSON.parse(r.data)));
    rows.push(['page 4 by pageToken (raw: OFFSET, no count)', byToken.p50.toFixed(2), byToken.p95.toFixed(2), rawOnly.p50.toFixed(2), rawOnly.p95.toFixed(2), (byToken.p50 / rawOnly.p50).toFixed(2)]);
    db.close();
    console.log(`\ninvoicesList latency on SQLite at ${N_LATENCY.toLocaleString('en')} invoices (seeded in one transaction in ${(seedMs / 1000).toFixed(1)} s), 200 calls each, in-process; target: op within 2x of raw`);
    table(['case', 'op p50 ms', 'op p95 ms', 'raw p50 ms', 'raw p95 ms', 'op/raw p50'], rows);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
