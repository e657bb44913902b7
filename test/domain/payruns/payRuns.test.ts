import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_APPROVAL_POLICY } from '../../../functions/src/domain/payments/approvals.ts';
import type { PaymentRecord, Payout } from '../../../functions/src/domain/payments/payments.ts';
import type { SupplierRecord } from '../../../functions/src/domain/payments/suppliers.ts';
import { buildRunFiles, masavSettings, matchesSnapshot, nextSerial, runItemOf, statusFrom, type RunItemRecord } from '../../../functions/src/domain/payruns/payRuns.ts';

const payment = (over: Partial<PaymentRecord> = {}): PaymentRecord =>
  ({
    id: 'p1', businessId: 'b1', status: 'ready', supplierName: 'דני כהן', supplierPhone: null, supplierEmail: 'd@example.com', supplierKey: 'd@example.com',
    amountAgorot: 11_800, openAmount: false, currency: 'ILS', vatIncluded: true, invoiceRequired: false, payMethods: [], description: 'x', channel: 'link',
    linkToken: 't', invoices: [], proof: null, payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '123456' }, itaVerdict: null,
    invoiceNumber: '', search: [], submissions: [], viaPublicLink: false, createdAt: '', createdAtMs: 0, updatedAt: '', sentAt: null, supplierSubmittedAt: null,
    readyAt: null, paidAt: null, canceledAt: null, ...over,
  }) as PaymentRecord;
const bank = (over: Partial<Payout>): Payout => ({ method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '123456', ...over });
const refusal = (p: PaymentRecord, supplier: SupplierRecord | null = null, open = new Set<string>()) => {
  const r = runItemOf(p, DEFAULT_APPROVAL_POLICY, supplier, open);
  return 'refused' in r ? r.refused : r.file;
};

test('a payment goes in one file, or is refused with the first reason that applies', () => {
  assert.equal(refusal(payment()), 'masav');
  assert.equal(refusal(payment({ payout: { method: 'bit', bitPhone: '0501234567' } })), 'bit');
  assert.equal(refusal(payment({ currency: 'EUR', payout: { method: 'bank', iban: 'DE89370400440532013000', swift: 'COBADEFF' } })), 'foreign');
  assert.equal(refusal(payment({ status: 'awaiting_invoice' })), 'notReady');
  assert.equal(refusal(payment({ runId: 'r1' }), null, new Set(['r1'])), 'inOpenRun');
  assert.equal(refusal(payment({ runId: 'r-old' }), null, new Set(['r1'])), 'masav', 'a run no longer open holds nothing');
  assert.equal(refusal(payment({ openAmount: true, amountAgorot: 0 })), 'amountNotSet');
  assert.equal(refusal(payment({ payoutChanged: true })), 'notApproved');
  assert.equal(refusal(payment({ needsReview: true })), 'notApproved');
  assert.equal(refusal(payment({ payout: null })), 'noPayout');
  assert.equal(refusal(payment({ payout: bank({ bankBranch: '' }) })), 'bankIncomplete');
  assert.equal(refusal(payment({ currency: 'USD' })), 'israeliNotIls');
  // What MASAV cannot carry is refused before the run exists, naming the field.
  assert.equal(refusal(payment({ payout: bank({ bankCode: '13' }) })), 'masavBankCode', 'a merged bank takes no transfers');
  assert.equal(refusal(payment({ payout: bank({ bankCode: '123' }) })), 'masavBankCode');
  assert.equal(refusal(payment({ payout: bank({ bankBranch: '1234' }) })), 'masavBranch');
  assert.equal(refusal(payment({ payout: bank({ bankAccount: '1234567890' }) })), 'masavAccount');
  assert.equal(refusal(payment({ payout: bank({ bankAccount: '000' }) })), 'masavAccount');
  assert.equal(refusal(payment({ supplierName: '😀😀' })), 'masavName');
});

test("the item keeps the total VAT included, the supplier's ID when it is 9 digits at most, and a masked payout", () => {
  const withId = { card: { companyId: '51-400000-1' } } as unknown as SupplierRecord;
  const item = runItemOf(payment({ amountAgorot: 10_000, vatIncluded: false }), DEFAULT_APPROVAL_POLICY, withId, new Set()) as RunItemRecord;
  assert.equal(item.amountAgorot, 11_800);
  assert.equal(item.payeeId, '514000001');
  assert.equal(item.payoutMasked, 'bank 12-345 ••••456');
  const longId = { card: { companyId: '1234567890' } } as unknown as SupplierRecord;
  assert.equal((runItemOf(payment(), DEFAULT_APPROVAL_POLICY, longId, new Set()) as RunItemRecord).payeeId, null);
  assert.ok(matchesSnapshot(payment({ amountAgorot: 11_800 }), item));
  assert.ok(!matchesSnapshot(payment({ amountAgorot: 11_900, vatIncluded: true }), item), 'another amount');
  assert.ok(!matchesSnapshot(payment({ amountAgorot: 10_000, vatIncluded: false, payout: bank({ bankAccount: '999' }) }), item), 'another account');
});

test('serials run 1 to 999 and start again; the run is paid when every payment is paid or canceled', () => {
  assert.deepEqual([nextSerial(undefined), nextSerial(1), nextSerial(998), nextSerial(999)], [1, 2, 999, 1]);
  assert.equal(statusFrom(['ready', 'ready']), 'open');
  assert.equal(statusFrom(['paid', 'ready']), 'partly_paid');
  assert.equal(statusFrom(['paid', 'canceled']), 'paid');
  assert.equal(statusFrom(['canceled']), 'open');
});

test('MASAV settings: both codes and a writable name, else the fields missing; the files are the same bytes when built again', () => {
  assert.deepEqual(masavSettings({ masavInstitutionId: '12345678', masavSenderId: '54321', businessName: 'מאפייה' }).missing, []);
  assert.deepEqual(masavSettings({ masavInstitutionId: '1234', businessName: '' , name: '😀' }).missing, ['masavInstitutionId', 'masavSenderId', 'businessName']);
  const item = runItemOf(payment(), DEFAULT_APPROVAL_POLICY, null, new Set()) as RunItemRecord;
  const run = { items: [item], masav: { institutionId: '12345678', senderId: '54321', institutionName: 'מאפייה' }, serial: 12, payDate: '2026-12-01', createdDay: '2026-11-28' };
  const [a, b] = [buildRunFiles(run), buildRunFiles(run)];
  assert.deepEqual(a.map((f) => [f.kind, f.fileName]), [['masav', 'masav-2026-12-01-012.txt'], ['portal', 'bank-transfers-2026-12-01.csv']]);
  a.forEach((f, i) => assert.ok(f.bytes.equals(b[i].bytes)));
  assert.deepEqual(buildRunFiles({ ...run, masav: null, serial: null }).map((f) => f.kind), ['portal']);
});
