import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAllowed, normalizePayMethods, type PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';
import { isDocId, paymentRow, paymentView, paymentViewSchema } from '../../../functions/src/domain/payments/paymentView.ts';
import type { Files } from '../../../functions/src/core/files.ts';

test('both pay methods, or none, are the same free choice', () => {
  assert.deepEqual(normalizePayMethods(undefined), []);
  assert.deepEqual(normalizePayMethods([]), []);
  assert.deepEqual(normalizePayMethods(['bit', 'bank']), []);
  assert.deepEqual(normalizePayMethods(['bit', 'bit']), ['bit']);
  assert.deepEqual(normalizePayMethods(['bank']), ['bank']);
});

test('resend is allowed from the unpaid states only', () => {
  for (const s of ['sent', 'awaiting_invoice', 'ready'] as const) assert.doesNotThrow(() => assertAllowed('resend', s));
  for (const s of ['paid', 'canceled'] as const) assert.throws(() => assertAllowed('resend', s), { code: 'failed-precondition', message: new RegExp(`cannot resend a payment whose status is ${s}`) });
});

test('ids that cannot be one path segment name no document', () => {
  assert.equal(isDocId('AbC123xyz'), true);
  for (const bad of ['a/b', '.', '..', '__x__']) assert.equal(isDocId(bad), false, bad);
});

const base: PaymentRecord = {
  id: 'p1',
  businessId: 'b1',
  status: 'ready',
  supplierName: 'Dana',
  supplierPhone: '+972501234567',
  supplierEmail: null,
  supplierKey: '+972501234567',
  amountAgorot: 100,
  openAmount: false,
  currency: 'ILS',
  vatIncluded: true,
  invoiceRequired: false,
  payMethods: [],
  description: 'x',
  channel: 'wa',
  linkToken: 'tok',
  invoices: [
    { fileId: 'gone', fileName: 'old.pdf', contentType: 'application/pdf', size: 1, sha256: 'a', uploadedAt: '2026-01-01T00:00:00.000Z' },
    { fileId: 'f2', fileName: 'new.pdf', contentType: 'application/pdf', size: 2, sha256: 'b', uploadedAt: '2026-01-02T00:00:00.000Z' },
  ],
  proof: null,
  payout: { method: 'bit', bitPhone: '+972501234567', extra: 'dropped' } as never,
  itaVerdict: null,
  invoiceNumber: '',
  search: [],
  submissions: [],
  viaPublicLink: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  createdAtMs: 0,
  updatedAt: '2026-01-01T00:00:00.000Z',
  sentAt: null,
  supplierSubmittedAt: '2026-01-01T00:00:00.000Z',
  readyAt: '2026-01-01T00:00:00.000Z',
  paidAt: null,
  canceledAt: null,
};

const files = {
  async ref(_b: string, fileId: string) {
    return fileId === 'gone' ? null : { fileId, fileName: 'n', contentType: 'application/pdf', size: 2, url: `https://files.example.com/T${fileId}/n` };
  },
} as unknown as Files;
const deps = { files, publicLinkBase: 'https://pay.example.com' };

test('the row summarises the latest invoice; the view lists every invoice, a deleted file with a null url', async () => {
  const row = await paymentRow(base, deps);
  assert.deepEqual(row.invoice, { fileName: 'new.pdf', url: 'https://files.example.com/Tf2/n' });
  assert.equal(row.invoiceCount, 2);
  assert.equal(row.link, 'https://pay.example.com/pay/tok');
  const view = await paymentView(base, deps);
  assert.deepEqual(view.invoices.map((f) => f.url), [null, 'https://files.example.com/Tf2/n']);
  assert.deepEqual(view.payout, { method: 'bit', bitPhone: '+972501234567' }, 'only payout fields are returned');
  assert.equal(paymentViewSchema.safeParse(view).success, true);
});
