import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CODE_B, HEADER, ITEM, readText, records, TRAILER, type Table } from './masavLayout.ts';
import { masavCreditFile, type MasavFileInput, type MasavItem } from '../../../functions/src/domain/payruns/masav.ts';

/**
 * The credit file's field table ("mifrat zikuim", masav.co.il) as the open implementations document it:
 * [name, first position (1-based), length]. Written out here, not taken from the builder.
 */

function parse(rec: Buffer, table: Table): Record<string, Buffer> & { text: (k: string) => string } {
  const out: Record<string, Buffer> = {};
  let next = 1;
  for (const [k, at, len] of table) {
    assert.equal(at, next, `${k} starts right after the field before it`);
    out[k] = rec.subarray(at - 1, at - 1 + len);
    next = at + len;
  }
  assert.equal(next, 129, 'the table covers 128 positions');
  return Object.assign(out, { text: (k: string) => out[k].toString('latin1') });
}


const items: MasavItem[] = [
  { paymentId: 'pA', bankCode: '12', branch: '345', account: '123456', payeeId: '12345678', payeeName: 'דני כהן', amountAgorot: 123_450, payeeNumber: '7001' },
  { paymentId: 'pB', bankCode: '10', branch: '9', account: '987654321', payeeId: null, payeeName: 'Acme Ltd.', amountAgorot: 5, payeeNumber: null },
  { paymentId: 'pC', bankCode: '09', branch: '001', account: '42', payeeId: '514000001', payeeName: 'א.ב. בניה 2000 בע"מ', amountAgorot: 98_765_432_10, payeeNumber: '12345678901234567890' },
];
const input: MasavFileInput = {
  institutionId: '12345678', senderId: '54321', institutionName: 'מאפיית הגליל', payDate: '2026-12-01', createdDate: '2026-11-28', serial: 7, items,
};

test('a file of 3 payments parses back, field by field, to the payments', () => {
  const file = masavCreditFile(input);
  assert.ok(Buffer.isBuffer(file));
  const recs = records(file);
  assert.equal(recs.length, 1 + 3 + 1 + 1);

  const h = parse(recs[0], HEADER);
  assert.deepEqual(
    [h.text('type'), h.text('institution'), h.text('currency'), h.text('payDate'), h.text('serial'), h.text('createdDate'), h.text('sender'), h.text('kot')],
    ['K', '12345678', '00', '261201', '007', '261128', '54321', 'KOT'],
  );
  assert.equal(readText(h.name), 'מאפיית הגליל');
  assert.match(h.text('filler1') + h.text('filler2') + h.text('filler3'), /^0+$/);
  assert.match(h.text('filler4'), /^ {56}$/);

  const back = recs.slice(1, 4).map((r) => {
    const f = parse(r, ITEM);
    assert.equal(f.text('type'), '1');
    assert.equal(f.text('institution'), '12345678');
    assert.equal(f.text('movement'), '006', 'a credit');
    assert.match(f.text('filler1') + f.text('accountType') + f.text('filler2') + f.text('period') + f.text('reference') + f.text('filler3'), /^0+$/);
    assert.equal(f.text('filler4'), '  ');
    return {
      bank: f.text('bank'), branch: f.text('branch'), account: f.text('account'), payeeId: f.text('payeeId'), name: readText(f.name),
      agorot: Number(f.text('shekels')) * 100 + Number(f.text('agorot')), payeeNumber: f.text('payeeNumber'),
    };
  });
  assert.deepEqual(back, [
    { bank: '12', branch: '345', account: '000123456', payeeId: '012345678', name: 'דני כהן', agorot: 123_450, payeeNumber: '00000000000000007001' },
    // unknown payee id and number are zeros; Latin letters are written as capitals
    { bank: '10', branch: '009', account: '987654321', payeeId: '000000000', name: 'ACME LTD.', agorot: 5, payeeNumber: '0'.repeat(20) },
    // the name's first 16 characters
    { bank: '09', branch: '001', account: '000000042', payeeId: '514000001', name: 'א.ב. בניה 2000 ב', agorot: 98_765_432_10, payeeNumber: '12345678901234567890' },
  ]);

  const t = parse(recs[4], TRAILER);
  assert.equal(t.text('type'), '5');
  assert.equal(t.text('institution'), '12345678');
  assert.equal(t.text('payDate'), '261201');
  assert.equal(t.text('serial'), '007');
  assert.equal(Number(t.text('shekels')) * 100 + Number(t.text('agorot')), 123_450 + 5 + 98_765_432_10, 'the trailer total is the sum of the records');
  assert.equal(t.text('shekels'), '0000098766666');
  assert.equal(t.text('agorot'), '65');
  assert.equal(t.text('count'), '0000003');
  assert.match(t.text('debits') + t.text('debitCount'), /^0+$/);
  assert.match(t.text('filler2'), /^ {63}$/);

  assert.equal(recs[5].toString('latin1'), '9'.repeat(128));
});

test('a Hebrew name is one byte a letter in Code B, reversed, then spaces', () => {
  const file = masavCreditFile({ ...input, items: [{ ...items[0], payeeName: 'שלום' }] });
  const name = records(file)[1].subarray(45, 61);
  // ש=0x99 ל=0x8C ו=0x85 ם=0x8D (final mem), written last letter first
  assert.deepEqual([...name], [0x8d, 0x85, 0x8c, 0x99, ...Array(12).fill(0x20)]);
});

test('points, Hebrew punctuation and characters MASAV has no byte for', () => {
  const named = (payeeName: string) => readText(parse(records(masavCreditFile({ ...input, items: [{ ...items[0], payeeName }] }))[1], ITEM).name);
  assert.equal(named('שָׁלוֹם'), 'שלום', 'niqqud dropped');
  assert.equal(named('כהן־לוי בע״מ'), 'כהן-לוי בע"מ', 'maqaf and gershayim as ASCII');
  assert.equal(named('Café ☕ Noir'), 'CAFE NOIR', 'an accent dropped, an emoji a space, runs of spaces one');
  // cut after 16 characters, the space at the cut not written (it would show before the name, read right to left)
  const cut = parse(records(masavCreditFile({ ...input, items: [{ ...items[0], payeeName: 'אבגדהוזחטיכלמנס עפצ' }] }))[1], ITEM).name;
  assert.deepEqual([...cut], [...[...'אבגדהוזחטיכלמנס'].reverse().map((c) => 0x80 + CODE_B.indexOf(c)), 0x20]);
  assert.throws(() => masavCreditFile({ ...input, items: [{ ...items[0], payeeName: '☕☕' }] }), { code: 'invalid-argument', details: { field: 'items[0].payeeName', reason: 'invalidValue' } });
});

test('a payment the file cannot carry exactly is refused, naming the payment and the field', () => {
  const refuse = (change: Partial<MasavItem>, field: string) =>
    assert.throws(() => masavCreditFile({ ...input, items: [items[0], { ...items[1], ...change }] }), (e: { code: string; message: string; details: { field: string } }) => {
      assert.equal(e.code, 'invalid-argument');
      assert.equal(e.details.field, `items[1].${field}`);
      assert.match(e.message, new RegExp(`payment ${change.paymentId ?? 'pB'}`));
      return true;
    });
  refuse({ amountAgorot: 0 }, 'amountAgorot');
  refuse({ amountAgorot: -100 }, 'amountAgorot');
  refuse({ amountAgorot: 12.5 }, 'amountAgorot');
  refuse({ amountAgorot: 100_000_000_000_00 }, 'amountAgorot'); // 12 digits of shekels
  refuse({ account: '1234567890' }, 'account');
  refuse({ account: '0000' }, 'account');
  refuse({ account: '12-345' }, 'account');
  refuse({ bankCode: '1' }, 'bankCode');
  refuse({ bankCode: '123' }, 'bankCode');
  refuse({ bankCode: '13' }, 'bankCode'); // Union Bank, merged into Mizrahi-Tefahot
  refuse({ branch: '1234' }, 'branch');
  refuse({ payeeId: '1234567890' }, 'payeeId');
  refuse({ payeeNumber: 'INV-1' }, 'payeeNumber');
  refuse({ paymentId: 'pA' }, 'paymentId'); // in the file twice
  // The largest amount a record holds is written in full.
  const max = records(masavCreditFile({ ...input, items: [{ ...items[0], amountAgorot: 99_999_999_999_99 }] }))[1];
  assert.equal(parse(max, ITEM).text('shekels') + parse(max, ITEM).text('agorot'), '9'.repeat(13));
});

test('the header is refused without valid codes, dates, serial or payments', () => {
  const refuse = (change: Partial<MasavFileInput>, field: string) =>
    assert.throws(() => masavCreditFile({ ...input, ...change }), { code: 'invalid-argument', details: { field, reason: 'invalidValue' } });
  refuse({ institutionId: '1234567' }, 'institutionId');
  refuse({ senderId: '123456' }, 'senderId');
  refuse({ serial: 0 }, 'serial');
  refuse({ serial: 1000 }, 'serial');
  refuse({ payDate: '2026-02-30' }, 'payDate');
  refuse({ createdDate: '28/11/2026' }, 'createdDate');
  refuse({ items: [] }, 'items');
});
