import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bitCsv, foreignCsv, masavItems, portalCsv, runTotals, splitRun, type RunPayment } from '../../../functions/src/domain/payruns/bankFiles.ts';
import { masavCreditFile } from '../../../functions/src/domain/payruns/masav.ts';

const il = (paymentId: string, amountAgorot: number, extra: Partial<RunPayment> = {}): RunPayment => ({
  paymentId, supplierName: `Supplier ${paymentId}`, amountAgorot, currency: 'ILS',
  payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '123456', bankBeneficiary: 'דני כהן' }, ...extra,
});
const run: RunPayment[] = [
  il('m1', 123_450, { invoiceNumber: '1001', payeeId: '12345678' }),
  il('m2', 7, { payout: { method: 'bank', bankCode: '09', bankBranch: '001', bankAccount: '42' } }),
  { paymentId: 'f1', supplierName: 'Müller GmbH', amountAgorot: 250_000, currency: 'EUR', invoiceNumber: 'RE-7', payout: { method: 'bank', iban: 'DE89 3704 0044 0532 0130 00', swift: 'COBADEFFXXX', bankName: 'Commerzbank', bankCountry: 'DE', bankBeneficiary: 'Müller GmbH', beneficiaryAddress: 'Berlin' } },
  { paymentId: 'f2', supplierName: 'Acme Inc', amountAgorot: 10_001, currency: 'USD', payout: { method: 'bank', foreignAccount: '000123456789', swift: 'CHASUS33', bankCountry: 'US' } },
  il('f3', 5_000, { payout: { method: 'bank', iban: 'GB29NWBK60161331926819', swift: 'NWBKGB2L' } }), // shekels to a bank abroad
  il('b1', 4_550, { payout: { method: 'bit', bitPhone: '0501234567' } }),
  // fit no file
  il('x1', 100, { payout: null }),
  il('x2', 0),
  il('x3', 100, { currency: 'USD' }), // dollars to an Israeli account
  il('x4', 100, { currency: 'EUR', payout: { method: 'bit', bitPhone: '0501234567' } }),
  il('x5', 100, { payout: { method: 'bank', iban: 'DE89370400440532013000' } }), // abroad without SWIFT
  il('x6', 100, { payout: { method: 'bank', bankCode: '12', bankBranch: '', bankAccount: '1' } }),
  il('x7', 100, { payout: { method: 'bit' } }),
  il('m1', 123_450, { invoiceNumber: '1001', payeeId: '12345678' }), // named twice
];

/** A CSV as a spreadsheet reads it (no quoted commas in these files' values but the header). */
function csvRows(b: Buffer): string[][] {
  assert.deepEqual([...b.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 BOM');
  const text = b.subarray(3).toString('utf8');
  assert.ok(text.endsWith('\r\n'));
  return text.slice(0, -2).split('\r\n').map((l) => l.split(','));
}

test('each payment is in exactly one file, or refused with the reason it fits none', () => {
  const s = splitRun(run);
  const ids = (xs: { paymentId: string }[]) => xs.map((x) => x.paymentId);
  assert.deepEqual(ids(s.masav), ['m1', 'm2']);
  assert.deepEqual(ids(s.foreign), ['f1', 'f2', 'f3']);
  assert.deepEqual(ids(s.bit), ['b1']);
  assert.deepEqual(s.refused, [
    { paymentId: 'x1', reason: 'no_payout' },
    { paymentId: 'x2', reason: 'no_amount' },
    { paymentId: 'x3', reason: 'israeli_not_ils' },
    { paymentId: 'x4', reason: 'bit_not_ils' },
    { paymentId: 'x5', reason: 'foreign_incomplete' },
    { paymentId: 'x6', reason: 'bank_incomplete' },
    { paymentId: 'x7', reason: 'bit_incomplete' },
    { paymentId: 'm1', reason: 'duplicate' },
  ]);
  const inFiles = [...ids(s.masav), ...ids(s.foreign), ...ids(s.bit)];
  assert.equal(new Set(inFiles).size, inFiles.length, 'no payment in two files, or twice in one');
  assert.deepEqual([...new Set([...inFiles, ...ids(s.refused)])].sort(), [...new Set(ids(run))].sort(), 'every payment accounted for');
});

test('the bank-portal spreadsheet: BOM, bilingual header, the MASAV rows with amounts as 1234.50', () => {
  const rows = csvRows(portalCsv(splitRun(run).masav));
  assert.deepEqual(rows[0], ['בנק / Bank', 'סניף / Branch', 'חשבון / Account', 'שם המוטב / Beneficiary', '"ת""ז / ח""פ / ID / company no."', 'סכום / Amount', 'אסמכתא / Reference', 'מזהה תשלום / Payment ID']);
  assert.deepEqual(rows.slice(1), [
    ['12', '345', '123456', 'דני כהן', '12345678', '1234.50', '1001', 'm1'],
    // plain digits, leading zeros kept (a portal reads the file raw), the supplier's name when no account holder was typed
    ['09', '001', '42', 'Supplier m2', '', '0.07', 'm2', 'm2'],
  ]);
});

test('transfers abroad and Bit: one row each with their currency and phone', () => {
  const s = splitRun(run);
  const foreign = csvRows(foreignCsv(s.foreign));
  assert.equal(foreign[0].length, 10);
  assert.deepEqual(foreign.slice(1), [
    ['Müller GmbH', 'DE89370400440532013000', 'COBADEFFXXX', 'Commerzbank', 'DE', 'Berlin', '2500.00', 'EUR', 'RE-7', 'f1'],
    ['Acme Inc', '"=""000123456789"""', 'CHASUS33', '', 'US', '', '100.01', 'USD', 'f2', 'f2'],
    ['Supplier f3', 'GB29NWBK60161331926819', 'NWBKGB2L', '', '', '', '50.00', 'ILS', 'f3', 'f3'],
  ]);
  const bit = csvRows(bitCsv(s.bit));
  assert.deepEqual(bit[0], ['טלפון / Phone', 'שם המוטב / Beneficiary', 'סכום / Amount', 'אסמכתא / Reference', 'מזהה תשלום / Payment ID']);
  assert.deepEqual(bit.slice(1), [['"=""0501234567"""', 'Supplier b1', '45.50', 'b1', 'b1']]);
});

test('the run totals, the MASAV trailer and the spreadsheets agree to the agora', () => {
  const s = splitRun(run);
  const accepted = [...s.masav, ...s.foreign, ...s.bit];
  const totals = runTotals(accepted);
  assert.deepEqual(totals, [
    { currency: 'ILS', count: 4, totalAgorot: 123_450 + 7 + 5_000 + 4_550 },
    { currency: 'USD', count: 1, totalAgorot: 10_001 },
    { currency: 'EUR', count: 1, totalAgorot: 250_000 },
  ]);

  const file = masavCreditFile({ institutionId: '12345678', senderId: '54321', institutionName: 'Test', payDate: '2026-12-01', createdDate: '2026-11-28', serial: 1, items: masavItems(s.masav) });
  const trailer = file.subarray(3 * 130, 3 * 130 + 128).toString('latin1');
  assert.equal(trailer[0], '5');
  const trailerAgorot = Number(trailer.slice(21, 34)) * 100 + Number(trailer.slice(34, 36)); // positions 22–34 and 35–36
  assert.equal(trailerAgorot, runTotals(s.masav)[0].totalAgorot);
  assert.equal(trailerAgorot, 123_457);

  const agorot = (cell: string) => Math.round(Number(cell) * 100);
  const portalSum = csvRows(portalCsv(s.masav)).slice(1).reduce((t, r) => t + agorot(r[5]), 0);
  assert.equal(portalSum, trailerAgorot);
  const bitSum = csvRows(bitCsv(s.bit)).slice(1).reduce((t, r) => t + agorot(r[2]), 0);
  const foreignIls = csvRows(foreignCsv(s.foreign)).slice(1).filter((r) => r[7] === 'ILS').reduce((t, r) => t + agorot(r[6]), 0);
  assert.equal(trailerAgorot + bitSum + foreignIls, totals[0].totalAgorot, 'the ILS files add up to the run total');
});

test('the MASAV items carry the account holder, the payee ID and a numeric invoice number', () => {
  const [m1, m2] = masavItems(splitRun(run).masav);
  assert.deepEqual(m1, { paymentId: 'm1', bankCode: '12', branch: '345', account: '123456', payeeId: '12345678', payeeName: 'דני כהן', amountAgorot: 123_450, payeeNumber: '1001' });
  assert.equal(m2.payeeName, 'Supplier m2');
  assert.equal(m2.payeeId, null);
  assert.equal(masavItems([il('m3', 1, { invoiceNumber: 'INV-3' })])[0].payeeNumber, null, 'not digits: no payee number');
});
