import assert from 'node:assert/strict';

/**
 * The MASAV credit layout as the tests read a file back: each record's fields by position, the text fields decoded
 * (test/domain/payruns/masav.test.ts, test/operations/payruns/payRuns.test.ts).
 */

export const HEADER = [
  ['type', 1, 1], ['institution', 2, 8], ['currency', 10, 2], ['payDate', 12, 6], ['filler1', 18, 1], ['serial', 19, 3],
  ['filler2', 22, 1], ['createdDate', 23, 6], ['sender', 29, 5], ['filler3', 34, 6], ['name', 40, 30], ['filler4', 70, 56], ['kot', 126, 3],
] as const;
export const ITEM = [
  ['type', 1, 1], ['institution', 2, 8], ['currency', 10, 2], ['filler1', 12, 6], ['bank', 18, 2], ['branch', 20, 3],
  ['accountType', 23, 4], ['account', 27, 9], ['filler2', 36, 1], ['payeeId', 37, 9], ['name', 46, 16], ['shekels', 62, 11],
  ['agorot', 73, 2], ['payeeNumber', 75, 20], ['period', 95, 8], ['reference', 103, 3], ['movement', 106, 3], ['filler3', 109, 18], ['filler4', 127, 2],
] as const;
export const TRAILER = [
  ['type', 1, 1], ['institution', 2, 8], ['currency', 10, 2], ['payDate', 12, 6], ['filler1', 18, 1], ['serial', 19, 3],
  ['shekels', 22, 13], ['agorot', 35, 2], ['debits', 37, 15], ['count', 52, 7], ['debitCount', 59, 7], ['filler2', 66, 63],
] as const;

/** Code B: א is 0x80, each letter (finals in their alphabet place) one byte after the last, up to ת at 0x9A. */
export const CODE_B = 'אבגדהוזחטיךכלםמןנסעףפץצקרשת';
/** A text field as MASAV reads it: last byte first, Code B back to Hebrew, the padding dropped. */
export const readText = (b: Buffer) =>
  [...b]
    .reverse()
    .map((x) => (x >= 0x80 && x <= 0x9a ? CODE_B[x - 0x80] : String.fromCharCode(x)))
    .join('')
    .trim();

export type Table = readonly (readonly [string, number, number])[];

/** The file's records, checking each is 128 bytes then CRLF. */
export function records(file: Buffer): Buffer[] {
  assert.equal(file.length % 130, 0, 'whole records of 128 + CRLF');
  const recs: Buffer[] = [];
  for (let i = 0; i < file.length; i += 130) {
    assert.equal(file.subarray(i + 128, i + 130).toString('latin1'), '\r\n', `record ${i / 130} ends CRLF at byte 129`);
    recs.push(file.subarray(i, i + 128));
  }
  return recs;
}
