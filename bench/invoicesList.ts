import { mkdtempSync, rmSync } from 'node:fs';
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
import { invoicesPath, PAY_MARKS } from '../functions/src/domain/invoices.ts';
import { invoiceSearchTokens, newInvoiceDoc } from '../functions/src/domain/invoiceDocs.ts';
import { vendorKeyOf } from '../functions/src/domain/vendorKeys.ts';
import type { Ai } from '../functions/src/ports/ai.ts';

/**
 * `node bench/invoicesList.ts`: the document reads of one invoicesList page over 10,000 invoices
 * (seeded straight into the store in batches of 500), with filters and with q. Reads are counted
 * by the store's meter for the operation alone, and by the HTTP x-doc-reads header (which adds the
 * key and membership lookups). Prints a table; asserts nothing.
 */
const N = Number(process.env.BENCH_INVOICES ?? 10_000);
const dataDir = mkdtempSync(join(tmpdir(), 'bfo-bench-invoices-'));
const noAi: Ai = {
  configured: false,
  readInvoice: async () => ({ ok: false, reason: 'off' }),
  classifyCategories: async () => ({ ok: false, reason: 'off' }),
  classifySoftware: async () => ({ ok: false, reason: 'off' }),
};
const app = await createApp(loadConfig({ DATA_DIR: dataDir, STRICT_INDEXES: '1', LOG_LEVEL: 'error' }), { logger: silentLogger, ai: noAi });
try {
  const { store, clock, ids } = app.services;
  const biz = await createBusiness(store, ids, { name: 'Bench', email: 'bench@example.com' }, clock.now());
  const { apiKey } = await issueApiKey(store, { businessId: biz.businessId, userId: biz.userId, name: 'bench' }, clock.now());
  const b = biz.businessId;

  // 100 issuers (one in 100 invoices each); one in 10 is "Rare"; folders, categories and marks cycle.
  const folders = ['general', 'petty-cash', 'card-4242', 'card-1111', 'f-projects'];
  const t0 = Date.parse('2024-01-01T00:00:00Z');
  const started = performance.now();
  for (let start = 0; start < N; start += 500) {
    const batch = store.batch();
    for (let i = start; i < Math.min(N, start + 500); i++) {
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
      batch.set(invoicesPath(b, doc.docId), { ...doc });
    }
    await batch.commit();
  }
  const seedMs = performance.now() - started;

  const caller = await authenticate(store, `Bearer ${apiKey}`, clock.now());
  const op = registry.get('invoicesList')!;
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
    ['q two words, 1,000 matches ("rare vendor")', { q: 'rare vendor' }],
    ['q + folderId + from/to', { q: 'rare', folderId: 'general', from: '2024-01-01', to: '2024-12-31' }],
  ];
  const rows: string[][] = [];
  for (const [label, input] of cases) {
    const { result, meter } = await execute(op, input, caller, app.services, 'bench');
    const query = new URLSearchParams(Object.entries(input).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await http({ method: 'GET', path: '/v1/invoicesList', query, headers: { authorization: `Bearer ${apiKey}` }, body: undefined });
    const r = result as { items: unknown[]; total: number };
    rows.push([label, String(r.items.length), String(r.total), String(meter.reads), String(res.headers['x-doc-reads'])]);
  }
  const head = ['case', 'items', 'total', 'reads (op)', 'x-doc-reads (HTTP)'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ');
  console.log(`invoicesList on ${N.toLocaleString('en')} invoices (seeded in ${(seedMs / 1000).toFixed(1)} s)`);
  console.log(line(head));
  for (const r of rows) console.log(line(r));
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
