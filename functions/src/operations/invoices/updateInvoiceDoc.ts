import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input, LIMITS, text, multilineText } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { invoicesPath, PAY_MARKS, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { softwarePath, suggestionsPath } from '../../domain/invoices/issuers.ts';
import { effectivePayMark } from '../../domain/invoices/payMarks.ts';
import { getInvoice, invoiceSearchTokens, isRealDay, matchSupplier, settleDocument, viewWithUrl, invoiceViewSchema, placementOf, planRefile, writeBuiltIns } from '../../domain/invoices/invoiceDocs.ts';
import { correctReading, readingInput, type ReadingInput } from '../../domain/invoices/corrections.ts';
import { israeliVatNumber } from '../../domain/invoices/ita.ts';

export default defineOperation({
  name: 'updateInvoiceDoc',
  group: 'invoices',
  summary: 'Reassign the supplier, edit the note or pay mark, correct the reading',
  description:
    'Edit an invoice document: reassign its supplier (supplierKey, a phone or email of an existing supplier; "" clears the assignment), ' +
    'rename the supplier shown (supplierName), edit the note, or set the pay mark (payMark; "" lets the AI reading and the pay rules decide). ' +
    'reading corrects what the AI read (issuerName, issuerId, number, date, totalAgorot, vatAgorot, currency): a corrected field is marked ' +
    '(corrections: by, at, and the AI value) and a later analyzeInvoice keeps it; null gives back the AI value. Reports, ZIPs and duplicate checks use the corrected values.',
  flags: { idempotent: true },
  input: input({
    docId: id().describe('Invoice document id (from uploadInvoiceDoc or invoicesList).'),
    supplierKey: text(LIMITS.email).optional().describe('Assign to this supplier (phone or email); "" clears the assignment.'),
    supplierName: text().optional().describe('Supplier name to show with the assignment.'),
    note: multilineText(LIMITS.text).optional().describe('Free note; new lines allowed.'),
    payMark: z.enum(['', ...PAY_MARKS]).optional().describe("How it was paid; \"\" lets the AI reading and the issuer's rule decide."),
    reading: readingInput.optional(),
  }),
  output: invoiceViewSchema,
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const { docId } = input;
    if (input.supplierKey === undefined && input.supplierName === undefined && input.note === undefined && input.payMark === undefined && input.reading === undefined) {
      throw invalid('body', 'send at least one of supplierKey, supplierName, note, payMark, reading', { reason: 'nothingToChange' });
    }
    const correction = input.reading && checkReading(input.reading);
    const key = input.supplierKey?.trim() ? normalizeSupplierKey(input.supplierKey) : input.supplierKey === undefined ? undefined : '';
    const at = iso(ctx.clock.now());
    const doc = await ctx.store.runTransaction(async (tx) => {
      const cur = await getInvoice(tx, businessId, docId);
      const next: InvoiceDoc = { ...cur, updatedAt: at };
      let supplierChanged = false;
      if (key) {
        const supplier = await tx.get(suppliersPath(businessId, key));
        if (!supplier) throw notFound(`supplierKey: supplier ${key}`, 'supplier');
        const name = input.supplierName?.trim() || (supplier.data as unknown as SupplierRecord).name || '';
        Object.assign(next, { supplierKey: key, supplierName: name, supplierBy: 'hand' });
        supplierChanged = true;
      } else if (key === '') {
        Object.assign(next, { supplierKey: null, supplierName: input.supplierName?.trim() ?? '', supplierBy: null });
        supplierChanged = true;
      } else if (input.supplierName !== undefined) {
        Object.assign(next, { supplierName: input.supplierName.trim(), supplierBy: next.supplierKey || input.supplierName.trim() ? 'hand' : null });
        supplierChanged = true;
      }
      // A document assigned by hand leaves the suggestion or software item it was collected under.
      const leaving = supplierChanged && next.supplierBy === 'hand';
      const suggestion = leaving && cur.suggestionId ? await tx.get(suggestionsPath(businessId, cur.suggestionId)) : null;
      const software = leaving && cur.softwareId ? await tx.get(softwarePath(businessId, cur.softwareId)) : null;
      if (leaving) Object.assign(next, { suggestionId: null, softwareId: null });
      if (input.note !== undefined) {
        next.note = input.note.trim();
        next.search = invoiceSearchTokens(next);
      }
      if (input.payMark !== undefined) next.payMark = input.payMark;
      next.effectivePayMark = effectivePayMark({ payMark: next.payMark ?? '', paymentMark: next.paymentMark, payRule: next.payRule ?? '', aiPayMethod: next.reading?.payMethod });
      if (correction) {
        Object.assign(next, correctReading(cur.reading, cur.corrections, correction, { by: ctx.caller.email, at }));
        // A corrected issuer is matched again, unless the supplier was given by hand or is the payment's.
        const issuer = correction.issuerName !== undefined || correction.issuerId !== undefined;
        const matched = issuer && next.supplierBy !== 'hand' && next.source !== 'supplier' ? await matchSupplier(tx, businessId, next.reading) : undefined;
        // The issuer key, date, duplicates, rules and folder follow the corrected values.
        const settled = await settleDocument(tx, { businessId, at, doc: next, previous: cur, matched, refile: next.folderBy !== 'hand' });
        settled.commit();
        return settled.doc;
      }
      // Folder rules can name a supplier.
      const plan = supplierChanged ? await planRefile(tx, businessId, [next], at) : null;

      if (plan) {
        writeBuiltIns(tx, businessId, plan);
        Object.assign(next, placementOf(plan, docId));
      }
      for (const rec of [suggestion, software]) {
        if (rec) tx.update(rec.path, { docIds: ((rec.data.docIds as string[]) ?? []).filter((x) => x !== docId), updatedAt: at });
      }
      tx.set(invoicesPath(businessId, docId), { ...next });
      return next;
    });
    return viewWithUrl(ctx.files, ctx.store, doc);
  },
  activity: (input, result) => ({
    params: { fileName: result.fileName },
    targetIds: [result.docId],
    summary: `edited invoice ${result.fileName}: ${[
      ...(['supplierKey', 'supplierName', 'note', 'payMark'] as const).filter((f) => input[f] !== undefined),
      ...Object.keys(input.reading ?? {}).map((f) => `reading.${f}`),
    ].join(', ')}`,
  }),
});

/** The checks zod cannot state: a real calendar day, an Israeli business number (normalized to its 9 digits). */
function checkReading(r: ReadingInput): ReadingInput {
  if (!Object.values(r).some((v) => v !== undefined)) throw invalid('reading', 'send at least one field to correct', { reason: 'nothingToChange' });
  if (r.date != null && !isRealDay(r.date)) throw invalid('reading.date', `"${r.date}" is not a real date (YYYY-MM-DD)`, { reason: 'notARealDate', params: { value: r.date } });
  if (r.issuerId == null) return r;
  const issuerId = israeliVatNumber(r.issuerId);
  if (!issuerId) throw invalid('reading.issuerId', `"${r.issuerId}" is not an Israeli business number (8 or 9 digits)`, { reason: 'notBusinessNumber', params: { value: String(r.issuerId) } });
  return { ...r, issuerId };
}
