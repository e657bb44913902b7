import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import yauzl from 'yauzl';
import { parse } from 'csv-parse/sync';
import { invoicesEnv, upload, reading, pdf, type InvoicesEnv } from '../invoices/helpers.ts';
import { newSubmissionId, submitPayout, type PayoutFields } from '../../../functions/src/domain/payments/supplierSubmission.ts';
import { PDF } from '../payments/helpers.ts';
import { engines } from '../../engines.ts';

// Issue 34 B6: the accountant's package, the spend report and invoicesList tell the same story as the owner.
let env: InvoicesEnv;
let origin: string;
/** The service's clock: the proof is paid just after midnight Israel time. */
const START = Date.parse('2026-11-20T09:00:00Z');
let now = START;
const docs: Record<string, string> = {};
const payments: Record<string, string> = {};

/** A payment whose supplier attaches an invoice the AI reads as paid by card 4242, filed with `payout`; then paid. */
async function paidPayment(name: string, phone: string, payout: PayoutFields, r: ReturnType<typeof reading>) {
  const view = await env.h.call('createPayment', { amountAgorot: r.totalMinor, vatIncluded: true, description: 'Work', supplierName: name, supplierPhone: phone, channel: 'link' });
  const bytes = await pdf();
  env.ai.script(bytes, r);
  await submitPayout(env.h.app.services, { token: new URL(view.link).pathname.split('/').pop()!, submissionId: newSubmissionId(), payout, invoice: { fileName: 'invoice.pdf', contentType: 'application/pdf', bytes } });
  await env.h.app.queue!.drain();
  const [doc] = (await env.h.call('invoicesList', { source: 'supplier', supplierKey: view.supplierKey })).items;
  assert.equal(doc.readingStatus, 'read');
  return { paymentId: view.id as string, docId: doc.docId as string };
}

// On each engine: the package, the spend report and invoicesList come from queries over invoices and payments.
for (const engine of engines) {
  describe(engine.name, { skip: engine.skip }, () => {
    before(async () => {
      now = START;
      env = await invoicesEnv({ env: await engine.env(), now: () => now });
      origin = await env.h.listen();
      const card = { payMethod: 'card', cardEnding: '4242' } as const;
      // Read as card 4242, marked by the owner as paid by transfer.
      docs.marked = (await upload(env, reading({ ...card, issuer: { name: 'Acme', vatId: '515000001' }, number: 'A-1', date: '2026-11-03', totalMinor: 11_800 }))).docId;
      await env.h.call('updateInvoiceDoc', { docId: docs.marked, payMark: 'paid_transfer' });
      // Card payments that stay card payments.
      docs.card = (await upload(env, reading({ ...card, issuer: { name: 'Beta', vatId: '515000002' }, number: 'B-1', date: '2026-11-04', totalMinor: 20_000 }))).docId;
      await env.h.call('invoiceSetCategory', { docIds: [docs.card], category: 'software', remember: false });
      docs.slash = (await upload(env, reading({ ...card, issuer: { name: 'MOVE 24/7 בע"מ', vatId: '515000003' }, number: '7', date: '2026-11-05', totalMinor: 30_300 }))).docId;
      // The same invoice number of the same issuer again, stored anyway: a duplicate of B-1 (₪739).
      const dup = await upload(env, reading({ ...card, issuer: { name: 'Beta', vatId: '515000002' }, number: 'B-1', date: '2026-11-04', totalMinor: 73_900 }), { skipDuplicates: false });
      assert.equal(dup.duplicateOf, docs.card);
      docs.dup = dup.docId;
      // Payments paid by Bit and by bank transfer, whose invoices the AI read as card 4242.
      const bit = await paidPayment('Dana Cohen', '050-123-4567', { method: 'bit', bitPhone: '050-123-4567' }, reading({ ...card, issuer: { name: 'Dana Cohen', vatId: '515000004' }, number: 'D-1', date: '2026-11-06', totalMinor: 5_000 }));
      const bank = await paidPayment('Eli Levi', '052-765-4321', { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Eli Levi' }, reading({ ...card, issuer: { name: 'Eli Levi', vatId: '515000005' }, number: 'E-1', date: '2026-11-07', totalMinor: 7_000 }));
      [docs.bit, payments.bit, docs.bank, payments.bank] = [bit.docId, bit.paymentId, bank.docId, bank.paymentId];
      await env.h.call('markPaid', { paymentId: payments.bank });
      // 00:30 on 28 November in Israel.
      now = Date.parse('2026-11-27T22:30:00Z');
      await env.h.call('markPaid', { paymentId: payments.bit, proof: { fileName: 'bit.pdf', mimeType: 'application/pdf', dataBase64: PDF.toString('base64') } });
      await env.h.call('accFolderTemplate', {});
    });
    after(() => env.close());

    /** Every entry of a ZIP with its bytes. */
    function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
      return new Promise((resolve, reject) => {
        yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
          if (err || !zip) return reject(err);
          const out = new Map<string, Buffer>();
          zip.on('entry', (e) =>
            zip.openReadStream(e, (err2, stream) => {
              if (err2 || !stream) return reject(err2);
              const chunks: Buffer[] = [];
              stream.on('data', (c) => chunks.push(c));
              stream.on('end', () => (out.set(e.fileName, Buffer.concat(chunks)), zip.readEntry()));
            }),
          );
          zip.on('end', () => resolve(out));
          zip.on('error', reject);
          zip.readEntry();
        });
      });
    }

    async function accPackage(input: Record<string, unknown>) {
      const z = await env.h.call('accZip', input);
      const res = await fetch(z.url.replace(/^https?:\/\/[^/]+/, origin));
      assert.equal(res.status, 200);
      const entries = await unzip(Buffer.from(await res.arrayBuffer()));
      const [head, ...rows]: string[][] = parse(entries.get('index.csv')!, { bom: true });
      const col = (en: string) => head.findIndex((h) => h.endsWith(`/ ${en}`));
      const index = rows.map((r) => ({ file: r[col('File')], folder: r[col('Folder')], date: r[col('Date')], supplier: r[col('Supplier')], total: r[col('Total')], category: r[col('Category')], pay: r[col('Pay method')] }));
      return { z, names: [...entries.keys()], index, readme: entries.get('README.txt')!.toString('utf8') };
    }

    const CARDS = 'כרטיסי אשראי/כרטיס 4242';
    const GENERAL = 'חשבוניות לפי תיקייה/כללי';

    test("the owner's mark and a payment's pay method, not the AI's card reading, decide the ZIP folder and index.csv's pay method", async () => {
      const { index } = await accPackage({ from: '2026-11', to: '2026-11' });
      const row = (supplier: string) => {
        const found = index.filter((r) => r.supplier === supplier && !r.folder.startsWith('אסמכתאות'));
        assert.equal(found.length, 1, `${supplier}: ${JSON.stringify(index)}`);
        return [found[0].folder, found[0].pay];
      };
      assert.deepEqual(row('Acme'), [GENERAL, 'העברה בנקאית'], 'marked paid by transfer by the owner');
      assert.deepEqual(row('Dana Cohen'), [GENERAL, 'שולם אחרת'], 'its payment was paid by Bit');
      assert.deepEqual(row('Eli Levi'), [GENERAL, 'העברה בנקאית'], 'its payment was paid by bank transfer');
      assert.deepEqual(row('Beta'), [CARDS, 'כרטיס אשראי']);
      assert.deepEqual(row('MOVE 24/7 בע"מ'), [CARDS, 'כרטיס אשראי']);
      assert.equal(index.find((r) => r.supplier === 'Beta')!.category, 'תוכנות ומנויים', 'the category in Hebrew, not its id');
    });

    test('a stored duplicate is left out of the ZIP as out of the spend report: their totals agree', async () => {
      const { index, readme } = await accPackage({ from: '2026-11', to: '2026-11' });
      const invoiceRows = index.filter((r) => !r.folder.startsWith('אסמכתאות'));
      assert.ok(!invoiceRows.some((r) => r.total === '739.00'), 'the duplicate is not in the package');
      const zipTotal = invoiceRows.reduce((sum, r) => sum + Math.round(Number(r.total) * 100), 0);
      const spend = await env.h.call('spendSummary', { from: '2026-11-01', to: '2026-11-30', by: 'payMethod' });
      assert.deepEqual(spend.totals.map((t: any) => [t.currency, t.totalMinor, t.count]), [['ILS', zipTotal, invoiceRows.length]]);
      assert.equal(spend.duplicates, 1);
      assert.match(readme, /duplicate of another is left out/);
    });

    test("the spend report and invoicesList's payMark filter count what the owner and the payments say, not the AI's card reading", async () => {
      const spend = await env.h.call('spendSummary', { from: '2026-11-01', to: '2026-11-30', by: 'payMethod' });
      assert.deepEqual(
        Object.fromEntries(spend.byKey.map((r: any) => [r.key, [r.count, r.totalMinor, r.label]])),
        { paid_card: [2, 50_300, 'כרטיס אשראי'], paid_transfer: [2, 18_800, 'העברה בנקאית'], paid_other: [1, 5_000, 'שולם אחרת'] },
      );
      const listed = async (payMark: string) => (await env.h.call('invoicesList', { payMark, from: '2026-11-01', to: '2026-11-30' })).items.map((i: any) => i.docId).sort();
      assert.deepEqual(await listed('paid_transfer'), [docs.marked, docs.bank].sort());
      assert.deepEqual(await listed('paid_other'), [docs.bit]);
      assert.deepEqual(await listed('paid_card'), [docs.card, docs.slash, docs.dup].sort(), 'invoicesList lists duplicates too');
      for (const r of spend.byKey) assert.equal(r.exact, r.key !== 'paid_card', `${r.key}: the list holds the duplicate besides the counted invoices`);
    });

    test('a slash in a supplier name keeps the whole name; a proof paid at 00:30 Israel time is named by that Israel day, and so is the ZIP', async () => {
      const { z, names, index } = await accPackage({});
      assert.equal(z.fileName, 'accountant-2026-11-28.zip', 'named by the Israel day of now (2026-11-27T22:30Z)');
      assert.ok(names.includes(`${CARDS}/2026-11-05 MOVE 24-7 בעמ 7 ₪303.00.pdf`), names.join('\n'));
      const proof = index.find((r) => r.folder === 'אסמכתאות תשלום' && r.supplier === 'Dana Cohen');
      assert.ok(proof, JSON.stringify(index));
      assert.equal(proof.date, '2026-11-28');
      assert.match(proof.file, /^2026-11-28 Dana Cohen אסמכתא ₪50\.00\.pdf$/);
      const nov = await accPackage({ from: '2026-11', to: '2026-11' });
      assert.ok(nov.index.some((r) => r.folder === 'אסמכתאות תשלום' && r.date === '2026-11-28'), 'in the November package');
    });

    test("undoing a payment gives its invoice back to the AI's reading; the owner's own mark still wins over a payment", async () => {
      const biz = (await env.h.call('invoicesList', { payMark: 'paid_other' })).items.map((i: any) => i.docId);
      assert.deepEqual(biz, [docs.bit]);
      await env.h.call('revertPaid', { paymentId: payments.bit, status: 'ready' });
      assert.deepEqual((await env.h.call('invoicesList', { payMark: 'paid_other' })).items, []);
      assert.ok((await env.h.call('invoicesList', { payMark: 'paid_card' })).items.some((i: any) => i.docId === docs.bit), 'back to the card the AI read');
      await env.h.call('updateInvoiceDoc', { docId: docs.bit, payMark: 'paid_paypal' });
      await env.h.call('markPaid', { paymentId: payments.bit });
      assert.equal((await env.h.call('invoiceGet', { docId: docs.bit })).effectivePayMark, 'paid_paypal');
      await env.h.call('updateInvoiceDoc', { docId: docs.bit, payMark: '' });
      assert.equal((await env.h.call('invoiceGet', { docId: docs.bit })).effectivePayMark, 'paid_other', 'the paid payment decides once the owner clears the mark');
    });
  });
}
