import { join } from 'node:path';
import { randomFillSync } from 'node:crypto';
import { loadConfig } from '../functions/src/config.ts';
import { createApp } from '../functions/src/app.ts';
import { silentLogger } from '../functions/src/core/logger.ts';
import { createBusiness } from '../functions/src/domain/business.ts';
import { issueApiKey, authenticate } from '../functions/src/core/auth.ts';
import { execute } from '../functions/src/core/execute.ts';
import { invoicesPath } from '../functions/src/domain/invoices/invoices.ts';
import { newInvoiceDoc } from '../functions/src/domain/invoices/invoiceDocs.ts';

/** The two halves of bench/accZip.ts, each in a process of its own: `seed <dir> <n> <bytes>` and `zip <dir> <businessId>`. */
const [mode, dir, a, b] = process.argv.slice(2);
const app = await createApp(loadConfig({ DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'error' }), { logger: silentLogger });
const { store, ids, clock, files } = app.services;
try {
  if (mode === 'seed') {
    const n = Number(a);
    const size = Number(b);
    const biz = await createBusiness(store, ids, { name: 'Zip bench', email: 'zip@example.com' }, clock.now());
    const { apiKey } = await issueApiKey(store, { businessId: biz.businessId, userId: biz.userId, name: 'bench' }, clock.now());
    const bytes = Buffer.alloc(size);
    let batch = store.batch();
    for (let i = 0; i < n; i++) {
      randomFillSync(bytes, 0, 64);
      bytes.write('%PDF-1.4\n', 0);
      const ref = await files.save(biz.businessId, { fileName: `חשבונית-${i}.pdf`, contentType: 'application/pdf', bytes });
      const doc = newInvoiceDoc(
        { docId: `z${i}`, businessId: biz.businessId, fileId: ref.fileId, fileName: ref.fileName, contentType: 'application/pdf', size, sha256: `s${i}`, source: 'upload', createdAtMs: clock.now() + i },
        { readingStatus: 'read', folderId: i % 2 ? 'general' : 'petty-cash', date: '2026-03-01' },
      );
      batch.set(invoicesPath(biz.businessId, doc.docId), { ...doc });
      if (i % 400 === 399) {
        await batch.commit();
        batch = store.batch();
      }
    }
    await batch.commit();
    const caller = await authenticate(store, `Bearer ${apiKey}`, clock.now());
    const create = (await import('../functions/src/operations/accountant/accFolderCreate.ts')).default;
    await execute(create, { name: 'חשבוניות', source: { kind: 'invoices' } }, caller, app.services, 'bench');
    const stored = await store.query({ collection: invoicesPath(biz.businessId) });
    console.log(JSON.stringify({ businessId: biz.businessId, apiKey, fileIds: stored.map((d) => d.data.fileId) }));
  } else {
    const member = (await store.query({ collection: `businesses/${a}/members` }))[0].data as { userId: string; email: string };
    const caller = { businessId: a, userId: member.userId, email: member.email, role: 'admin' as const, keyName: 'bench' };
    const t = performance.now();
    // Only the operation is loaded (as a task or a lean function would): the whole registry would cost ~60 MB more.
    const accZip = (await import('../functions/src/operations/accountant/accZip.ts')).default;
    const { result } = await execute(accZip, {}, caller, app.services, 'bench');
    const ms = performance.now() - t;
    const r = result as { size: number; entries: number };
    console.log(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, size: r.size, entries: r.entries }));
  }
} finally {
  await app.close();
}
