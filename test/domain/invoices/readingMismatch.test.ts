import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import yauzl from 'yauzl';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { engines } from '../../engines.ts';
import { startFakeGemini, type FakeGemini, type FakeGeminiRequest } from '../../fakes/gemini.ts';
import { invoicePdf } from '../../fakes/pdfs.ts';
import { submitPayout, newSubmissionId, type PayoutFields } from '../../../functions/src/domain/payments/supplierSubmission.ts';

// Issue 34 B8: an invoice whose reading disagrees with its payment (total or currency) is flagged on
// the payment and on the invoice, follows later readings and amounts, and never names a ZIP entry.
// On each engine: the flags come from queries over invoices and payments.
for (const engine of engines) {
  describe(engine.name, { skip: engine.skip }, () => {
    let gemini: FakeGemini;
    let h: Harness;
    let origin: string;
    before(async () => {
      gemini = await startFakeGemini({ apiKey: 'test-gemini-key', model: 'gemini-2.5-flash' });
      h = await createHarness({ env: { ...(await engine.env()), GEMINI_API_KEY: 'test-gemini-key', GEMINI_BASE_URL: gemini.baseUrl } });
      origin = await h.listen();
    });
    after(async () => {
      await h.close();
      await gemini.close();
    });

    const BANK: PayoutFields = { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Dana Levi' };
    const ABROAD: PayoutFields = { method: 'bank', iban: 'DE89370400440532013000', swift: 'COBADEFFXXX', bankName: 'Commerzbank', bankCountry: 'DE', bankBeneficiary: 'Dana Levi', beneficiaryAddress: 'Berlin' };

    /** Gemini's wire reply (major units). */
    const wire = (number: string, total: number, currency: string) => ({
      issuer: { name: 'דנה לוי עיצובים', vatId: '540000001', email: '', phone: '' },
      docType: 'tax_invoice',
      number,
      date: '2026-03-10',
      total,
      currency,
      vat: 0,
      payMethod: '',
      cardEnding: '',
      lineItems: [],
      bank: null,
      allocationNumber: '',
    });

    /** An invoice PDF the fake Gemini reads as `total` in `currency` (the newest answer for the bytes wins). */
    async function pdfReadAs(number: string, total: number, currency = 'ILS') {
      const bytes = await invoicePdf({ number });
      readAs(bytes, number, total, currency);
      return { fileName: `${number}.pdf`, contentType: 'application/pdf', bytes };
    }
    const readAs = (bytes: Buffer, number: string, total: number, currency = 'ILS') =>
      gemini.answer((r: FakeGeminiRequest) => Boolean(r.inline[0]?.bytes.equals(bytes)), { text: JSON.stringify(wire(number, total, currency)) });

    async function paymentWithInvoice(biz: TestUser, payment: Record<string, unknown>, invoice: Awaited<ReturnType<typeof pdfReadAs>>, amount?: string, payout = BANK) {
      const view = await h.call('createPayment', { vatIncluded: true, description: 'Design', supplierName: 'דנה לוי', supplierPhone: '050-123-4567', channel: 'link', ...payment }, biz);
      const token = new URL(view.link).pathname.split('/').pop()!;
      await submitPayout(h.app.services, { token, submissionId: newSubmissionId(), payout, invoice, ...(amount ? { amount } : {}) });
      await h.app.queue!.drain();
      return view.id as string;
    }

    /** The flag as every surface shows it: paymentGet, the paymentsList row, invoiceGet and the invoicesList row. */
    async function flags(biz: TestUser, paymentId: string) {
      const payment = await h.call('paymentGet', { paymentId }, biz);
      const row = (await h.call('paymentsList', {}, biz)).items.find((p: any) => p.id === paymentId);
      const doc = (await h.call('invoicesList', { source: 'supplier' }, biz)).items.find((d: any) => d.paymentId === paymentId);
      const full = await h.call('invoiceGet', { docId: doc.docId }, biz);
      return { payment: payment.readingMismatch, row: row.readingMismatch, invoice: doc.readingMismatch, invoiceGet: full.readingMismatch };
    }
    const waitingOnHome = async (biz: TestUser, paymentId: string) => (await h.call('attention', {}, biz)).invoices.items.some((d: any) => d.paymentId === paymentId);
    const everywhere = (v: unknown) => ({ payment: v, row: v, invoice: v, invoiceGet: v });

    function zipNames(bytes: Buffer): Promise<string[]> {
      return new Promise((resolve, reject) => {
        yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
          if (err || !zip) return reject(err);
          const out: string[] = [];
          zip.on('entry', (e) => (out.push(e.fileName), zip.readEntry()));
          zip.on('end', () => resolve(out));
          zip.on('error', reject);
          zip.readEntry();
        });
      });
    }
    async function accZipNames(biz: TestUser): Promise<string[]> {
      const z = await h.call('accZip', {}, biz);
      const res = await fetch(z.url.replace(/^https?:\/\/[^/]+/, origin));
      assert.equal(res.status, 200);
      return (await zipNames(Buffer.from(await res.arrayBuffer()))).filter((n) => n.startsWith('חשבוניות/'));
    }

    test('an invoice of ₪1,234.50 read as ₪606.00 is flagged on the payment and the invoice, named by the payment in the ZIP, and cleared by a reading that agrees', async () => {
      const biz = await h.newBusiness('Mismatch Co');
      await h.call('accFolderCreate', { name: 'חשבוניות', source: { kind: 'invoices' } }, biz);
      const invoice = await pdfReadAs('INV-A', 606);
      const id = await paymentWithInvoice(biz, { amountAgorot: 1_234_50 }, invoice);

      assert.deepEqual(await flags(biz, id), everywhere({ total: true, currency: false }));
      assert.equal(await waitingOnHome(biz, id), true, 'the home lists the invoice as waiting for a decision');
      const [name] = await accZipNames(biz);
      assert.match(name, /₪1,234\.50\.pdf$/, 'the payment, the certain figure, names the file');
      assert.doesNotMatch(name, /606/, 'the doubtful reading does not');

      // Read again, this time right: the flag follows the latest reading, and the ZIP names the agreed total.
      readAs(invoice.bytes, 'INV-A', 1234.5);
      await h.call('analyzeInvoice', { paymentId: id }, biz);
      assert.deepEqual(await flags(biz, id), everywhere(null));
      assert.equal(await waitingOnHome(biz, id), false);
      assert.match((await accZipNames(biz))[0], /₪1,234\.50\.pdf$/);

      // The payment's amount changes to one the invoice does not say: flagged again.
      await h.call('updatePaymentSettings', { paymentId: id, amountAgorot: 1_300_00 }, biz);
      assert.deepEqual(await flags(biz, id), everywhere({ total: true, currency: false }));
    });

    test("a $2,450 payment's invoice read as ILS is flagged for its currency, and the ZIP names it in dollars", async () => {
      const biz = await h.newBusiness('Dollar Co');
      await h.call('accFolderCreate', { name: 'חשבוניות', source: { kind: 'invoices' } }, biz);
      const id = await paymentWithInvoice(biz, { amountAgorot: 2_450_00, currency: 'USD' }, await pdfReadAs('US-A', 2450, 'ILS'), undefined, ABROAD);

      assert.deepEqual(await flags(biz, id), everywhere({ total: false, currency: true }));
      const [name] = await accZipNames(biz);
      assert.match(name, /\$2,450\.00\.pdf$/);
      assert.doesNotMatch(name, /₪/);
    });

    test('an open-amount payment is compared with the amount the supplier entered', async () => {
      const biz = await h.newBusiness('Open Co');
      const agreed = await paymentWithInvoice(biz, { amountAgorot: 0, openAmount: true }, await pdfReadAs('OPEN-1', 606), '606');
      const differs = await paymentWithInvoice(biz, { amountAgorot: 0, openAmount: true, supplierPhone: '050-765-4321' }, await pdfReadAs('OPEN-2', 606), '700');
      assert.deepEqual(await flags(biz, agreed), everywhere(null));
      assert.deepEqual(await flags(biz, differs), everywhere({ total: true, currency: false }));
    });

    test("an uploaded invoice attached to a new payment is compared with it, on the payment and on the uploaded document", async () => {
      const biz = await h.newBusiness('Upload Co');
      const file = await pdfReadAs('UP-606', 606);
      const doc = await h.call('uploadInvoiceDoc', { fileName: file.fileName, mimeType: file.contentType, dataBase64: file.bytes.toString('base64') }, biz);
      assert.equal(doc.readingMismatch, null, 'no payment yet, nothing to disagree with');
      const p = await h.call('createPayment', { amountAgorot: 1_234_50, vatIncluded: true, description: 'Design', supplierName: 'דנה לוי', supplierPhone: '050-123-4567', channel: 'link', invoiceDocId: doc.docId }, biz);
      assert.deepEqual(p.readingMismatch, { total: true, currency: false });
      assert.deepEqual((await h.call('paymentGet', { paymentId: p.id }, biz)).readingMismatch, { total: true, currency: false });
      const after = await h.call('invoiceGet', { docId: doc.docId }, biz);
      assert.equal(after.paymentId, p.id);
      assert.deepEqual(after.readingMismatch, { total: true, currency: false });
    });
  });
}
