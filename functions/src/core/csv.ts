/**
 * Every CSV file the service writes (statement reports, indexes), by one rule (docs/decisions.md):
 * - RFC 4180: comma-separated, a field quoted when it holds a quote, a comma or a line break; CRLF line ends.
 * - UTF-8 with a BOM, so spreadsheets read Hebrew right.
 * - One header row, each column named in Hebrew and English ("תאריך / Date").
 * - A cell a spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) gets a leading apostrophe,
 *   unless it is a plain number ("-12.50" stays a number a sum can use).
 * - A value a spreadsheet would turn into something else (0042 into 42, 1/3 into a date, a long id into 1.23E+15)
 *   is written in the formula-safe text form ="0042", which Excel and Google Sheets show as the text itself.
 */

export interface CsvColumn {
  he: string;
  en: string;
}

export type CsvValue = string | number | null | undefined;

/** One field as RFC 4180 writes it: quoted when it holds a quote, a comma or a line break. */
export const csvField = (v: string | number): string => {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** A plain decimal number: a spreadsheet reads it as that number, and runs nothing. */
const PLAIN_NUMBER = /^-?(0|[1-9]\d{0,14})(\.\d+)?$/;
/** Starts a formula (OWASP's list for CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
/**
 * Text a spreadsheet would silently convert: digits with a leading zero (card endings, phone numbers), digits
 * past 15 (Excel's precision), fractions and short dates such as 1/3 or 3-1, and exponent forms such as 1E5.
 * Only digits and / . - e E: the ="…" form can never carry a formula of its own.
 */
const MANGLED = /^(0\d+|\d{16,}|\d{1,4}[/.-]\d{1,4}([/.-]\d{1,4})?|\d+[eE]\d+)$/;
/** A full ISO day is a date, and a spreadsheet taking it as that date is right. */
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A cell's text under the rule above (before RFC 4180 quoting). */
export function safeCell(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return '';
    const s = String(v);
    return PLAIN_NUMBER.test(s) ? s : safeCell(s);
  }
  if (PLAIN_NUMBER.test(v)) return v;
  if (MANGLED.test(v) && !ISO_DAY.test(v)) return `="${v}"`;
  if (FORMULA_START.test(v)) return `'${v}`;
  return v;
}

/** The header cell of a column: Hebrew, then English. */
export const headerCell = (c: CsvColumn) => `${c.he} / ${c.en}`;

/** A whole CSV file: BOM, the bilingual header row, then the rows, each cell made safe; a line end after the last row. */
export function csvFile(columns: readonly CsvColumn[], rows: readonly (readonly CsvValue[])[]): Buffer {
  const lines = [columns.map(headerCell), ...rows.map((r) => columns.map((_, i) => safeCell(r[i])))];
  return Buffer.from('\uFEFF' + lines.map((l) => l.map(csvField).join(',')).join('\r\n') + '\r\n', 'utf8');
}
