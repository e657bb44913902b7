/**
 * The MASAV credit file (קובץ זיכויים) a business uploads to its bank: fixed 128-byte records, each ending CRLF, in
 * the field layout of MASAV's "mifrat zikuim" as the open implementations (npm `masav`, PyPI `masav`) write it:
 * a K header, one `1` record per payment, a `5` trailer and a closing record of 128 `9`s.
 * Hebrew text is Code B (א = 0x80 … ת = 0x9A, one byte a letter), the whole field reversed (MASAV reads the last
 * byte first). Every choice the layout leaves open is in docs/decisions.md ("Payment runs and bank files").
 */
import { invalid } from '../../core/errors.ts';
import { MERGED_BANKS } from '../payments/israeliBanks.ts';

export const MASAV_RECORD = 128;
const CRLF = '\r\n';

export interface MasavItem {
  /** Named in a refusal, so the owner knows which payment to fix. */
  paymentId?: string;
  bankCode: string;
  branch: string;
  account: string;
  /** The payee's ID or company number; unknown = zeros. */
  payeeId?: string | null;
  payeeName: string;
  amountAgorot: number;
  /** The payee's number in the business's books (digits); unknown = zeros. */
  payeeNumber?: string | null;
}

export interface MasavFileInput {
  institutionId: string;
  senderId: string;
  institutionName: string;
  payDate: string;
  createdDate: string;
  /** 1–999: the header's and trailer's three digits. */
  serial: number;
  items: readonly MasavItem[];
}

/** The largest amount one record holds: 11 digits of shekels and 2 of agorot. */
export const MASAV_MAX_ITEM_AGOROT = 99_999_999_999_99;
/** The trailer's 13 digits of shekels and 2 of agorot (still a safe integer). */
const MAX_TOTAL_AGOROT = 999_999_999_999_999;

const HEBREW_FIRST = 0x05d0; // א
const HEBREW_LAST = 0x05ea; // ת
const CODE_B_FIRST = 0x80;
/** Marks a Hebrew text has that are not letters: maqaf, geresh and gershayim, as their ASCII look-alikes. */
const HEBREW_PUNCT: Record<string, string> = { '\u05be': '-', '\u05f3': "'", '\u05f4': '"' };
/** ASCII kept in a name besides letters, digits and space; anything else becomes a space. */
const KEPT_PUNCT = new Set([...`'"-.,&/()`]);

/**
 * A name as Code B bytes in logical order, or null when nothing of it can be written: points and accents dropped
 * (NFKD), Latin letters as capitals, characters with no byte (emoji, Arabic, symbols) as a space, runs of spaces as one.
 */
export function masavText(name: string): number[] | null {
  const out: number[] = [];
  for (const ch of name.normalize('NFKD')) {
    const cp = ch.codePointAt(0)!;
    let byte: number | null;
    if (cp >= HEBREW_FIRST && cp <= HEBREW_LAST) byte = CODE_B_FIRST + (cp - HEBREW_FIRST);
    else if (/\p{M}/u.test(ch)) continue; // niqqud, cantillation, accents
    else if (HEBREW_PUNCT[ch]) byte = HEBREW_PUNCT[ch].charCodeAt(0);
    else if (/[A-Za-z0-9]/.test(ch)) byte = ch.toUpperCase().charCodeAt(0);
    else if (KEPT_PUNCT.has(ch)) byte = cp;
    else byte = 0x20;
    if (byte === 0x20 && (out.length === 0 || out[out.length - 1] === 0x20)) continue;
    out.push(byte);
  }
  while (out.at(-1) === 0x20) out.pop();
  return out.length ? out : null;
}

/** A text field: the first `width` characters (no space left at the cut), reversed, then spaces to the field's end; one latin1 char a byte. */
function textField(bytes: number[], width: number): string {
  const kept = bytes.slice(0, width);
  while (kept.at(-1) === 0x20) kept.pop();
  return String.fromCharCode(...kept.reverse()).padEnd(width, ' ');
}


const num = (v: number | string, width: number) => String(v).padStart(width, '0');

/** Digits a bank field can hold (spaces and dashes people type are dropped), or null when it cannot. */
function digits(v: string | null | undefined, width: number): string | null {
  const s = (v ?? '').replace(/[\s-]/g, '');
  if (s === '') return '0'.repeat(width);
  return /^\d+$/.test(s) && s.length <= width ? s.padStart(width, '0') : null;
}

/** 'YYYY-MM-DD' → 'YYMMDD', refusing what is not a calendar day. */
function yymmdd(field: string, day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const d = m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])) : null;
  if (!m || !d || d.getUTCMonth() !== +m[2] - 1 || d.getUTCDate() !== +m[3]) throw invalid(field, `${JSON.stringify(day)} is not a YYYY-MM-DD day`);
  return m[1].slice(2) + m[2] + m[3];
}

/** A record: its parts (each char one byte), checked to make exactly 128, then CRLF. */
function record(parts: string[]): string {
  const r = parts.join('');
  if (r.length !== MASAV_RECORD) throw new Error(`MASAV record of ${r.length} bytes`);
  return r + CRLF;
}

/** One item's fields, checked; a refusal names the item's place and its payment. */
function checkItem(it: MasavItem, i: number) {
  const who = `payment ${it.paymentId ?? i + 1}`;
  const bad = (f: string, problem: string) => invalid(`items[${i}].${f}`, `${who}: ${problem}`);
  if (!/^\d{2}$/.test(it.bankCode)) throw bad('bankCode', 'the bank code must be 2 digits');
  const merged = MERGED_BANKS[it.bankCode];
  if (merged) throw bad('bankCode', `${merged.en} (${it.bankCode}) merged into bank ${merged.into} and takes no transfers`);
  const branch = /^\d{1,3}$/.test(it.branch) ? num(it.branch, 3) : null;
  if (!branch) throw bad('branch', 'the branch must be 1 to 3 digits');
  const account = /^\d{1,9}$/.test(it.account) ? num(it.account, 9) : null;
  if (!account) throw bad('account', 'the account number must be 1 to 9 digits');
  if (/^0+$/.test(account)) throw bad('account', 'the account number is zero');
  const payeeId = digits(it.payeeId, 9);
  if (!payeeId) throw bad('payeeId', 'the payee ID must be at most 9 digits');
  const payeeNumber = digits(it.payeeNumber, 20);
  if (!payeeNumber) throw bad('payeeNumber', 'the payee number must be at most 20 digits');
  const name = masavText(it.payeeName);
  if (!name) throw bad('payeeName', 'the name has no letter or digit MASAV can carry');
  const a = it.amountAgorot;
  if (!Number.isSafeInteger(a) || a <= 0) throw bad('amountAgorot', 'the amount must be a whole number of agorot above zero');
  if (a > MASAV_MAX_ITEM_AGOROT) throw bad('amountAgorot', 'the amount is over the 11 digits of shekels a MASAV record holds');
  return { account, branch, payeeId, payeeNumber, name, amountAgorot: a };
}

/** The MASAV credit file's bytes. Refuses (invalid-argument naming the field and the payment) rather than write a wrong record. */
export function masavCreditFile(input: MasavFileInput): Buffer {
  if (!/^\d{8}$/.test(input.institutionId)) throw invalid('institutionId', 'the MASAV institution code must be 8 digits');
  if (!/^\d{5}$/.test(input.senderId)) throw invalid('senderId', 'the MASAV sending institution code must be 5 digits');
  if (!Number.isInteger(input.serial) || input.serial < 1 || input.serial > 999) throw invalid('serial', 'the serial number must be 1 to 999');
  const instName = masavText(input.institutionName);
  if (!instName) throw invalid('institutionName', 'the institution name has no letter or digit MASAV can carry');
  if (input.items.length === 0) throw invalid('items', 'a MASAV file needs at least one payment');
  const payDate = yymmdd('payDate', input.payDate);
  const created = yymmdd('createdDate', input.createdDate);
  const items = input.items.map(checkItem);
  const seen = new Set<string>();
  input.items.forEach((it, i) => {
    if (it.paymentId === undefined) return;
    if (seen.has(it.paymentId)) throw invalid(`items[${i}].paymentId`, `payment ${it.paymentId} is in the file twice`);
    seen.add(it.paymentId);
  });
  let total = 0;
  for (const it of items) {
    total += it.amountAgorot; // each step stays a safe integer: it stops at the first sum over the field
    if (total > MAX_TOTAL_AGOROT) throw invalid('items', 'the total is over the 13 digits of shekels the MASAV trailer holds');
  }
  if (items.length > 9_999_999) throw invalid('items', 'more payments than the MASAV trailer can count');

  const inst = input.institutionId;
  const serial = num(input.serial, 3);
  const currency = '00'; // shekels
  const header = record(['K', inst, currency, payDate, '0', serial, '0', created, input.senderId, '0'.repeat(6), textField(instName, 30), ' '.repeat(56), 'KOT']);
  const rows = input.items.map((it, i) => {
    const c = items[i];
    const shekels = Math.floor(c.amountAgorot / 100);
    return record([
      '1', inst, currency, '0'.repeat(6),
      it.bankCode, c.branch, '0'.repeat(4), c.account, '0', c.payeeId,
      textField(c.name, 16),
      num(shekels, 11), num(c.amountAgorot % 100, 2),
      c.payeeNumber,
      '0'.repeat(8), // the period paid for (YYMM–YYMM): none
      '000', '006', // 006: a credit
      '0'.repeat(18), '  ',
    ]);
  });
  const trailer = record([
    '5', inst, currency, payDate, '0', serial,
    num(Math.floor(total / 100), 13), num(total % 100, 2),
    '0'.repeat(15), num(items.length, 7), '0'.repeat(7), ' '.repeat(63),
  ]);
  return Buffer.from(header + rows.join('') + trailer + record(['9'.repeat(MASAV_RECORD)]), 'latin1');
}
