import { invalid } from '../../core/errors.ts';
import { csvFile, type CsvColumn } from '../../core/csv.ts';
import type { DocStore } from '../../ports/store.ts';
import { CURRENCIES, type Currency } from '../money.ts';
import { lastDayOf } from '../months.ts';
import { categoryLabel } from '../invoices/categories.ts';
import { isRealDay } from '../invoices/invoiceDocs.ts';
import { invoicesPath, type InvoiceDoc, type PayMark } from '../invoices/invoices.ts';
import { docPayMark, PAY_MARK_LABELS } from '../invoices/payMarks.ts';
import { vatIsTotal } from '../invoices/corrections.ts';

/**
 * Spend reports (issue 19): invoice totals by month and by one dimension, per currency. Amounts are
 * integer minor units; nothing is converted between currencies. Each row carries the invoicesList
 * filter that lists the invoices behind it, so a figure can link to them.
 */

export const SPEND_DIMENSIONS = ['category', 'supplier', 'payMethod'] as const;
export type SpendDimension = (typeof SPEND_DIMENSIONS)[number];

/** Two years of days at most (a leap year included): a report reads every invoice of its range. */
export const MAX_RANGE_DAYS = 731;

/** invoicesList input that lists a row's invoices: the same field names. */
export interface SpendFilter {
  from: string;
  to: string;
  category?: string;
  supplierKey?: string;
  payMark?: PayMark;
}

export interface SpendRow {
  /** YYYY-MM; null on the rows of the whole range. */
  month: string | null;
  /** The dimension's value ("" = none: uncategorized, no supplier); null on the per-month rows. */
  key: string | null;
  label: string | null;
  currency: Currency;
  count: number;
  totalMinor: number;
  /** VAT and net over the invoices whose reading has VAT; withoutVat counts the others (their totals are in totalMinor only). */
  vatMinor: number;
  netMinor: number;
  withoutVat: number;
  /** Invoices counted here whose VAT equals their total (counted as read, but likely misread). */
  vatIsTotal: number;
  filter: SpendFilter;
  /** Whether invoicesList with `filter` lists exactly these invoices; false when it lists more (other currencies, "no supplier" rows, unread invoices, duplicates). */
  exact: boolean;
}

export interface SpendSummary {
  from: string;
  to: string;
  by: SpendDimension;
  rows: SpendRow[];
  byMonth: SpendRow[];
  byKey: SpendRow[];
  totals: SpendRow[];
  /** Invoices of the range left out: no total or currency read (unread, failed, or partial), and stored duplicates. */
  withoutAmount: number;
  duplicates: number;
  /** The counted invoices whose VAT equals their total, newest first: flagged, not refused. */
  vatIsTotal: string[];
}

const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);

/** Validates a from/to pair of real days, from ≤ to, at most MAX_RANGE_DAYS; invalid-argument names the field. */
export function checkRange(from: string, to: string): void {
  if (!isRealDay(from)) throw invalid('from', `"${from}" is not a real date (YYYY-MM-DD)`, { reason: 'notARealDate', params: { value: from } });
  if (!isRealDay(to)) throw invalid('to', `"${to}" is not a real date (YYYY-MM-DD)`, { reason: 'notARealDate', params: { value: to } });
  if (from > to) throw invalid('from', `${from} is after to (${to})`, { reason: 'dateRangeReversed' });
  const days = (dayMs(to) - dayMs(from)) / 86_400_000 + 1;
  if (days > MAX_RANGE_DAYS) throw invalid('to', `the range is ${days} days; at most ${MAX_RANGE_DAYS} (two years)`, { reason: 'rangeTooLong', params: { max: MAX_RANGE_DAYS } });
}


interface Keyed {
  key: string;
  label: string;
  filter: Partial<SpendFilter>;
}

/** The dimension value of one invoice, with the invoicesList filter that finds it. */
function keyOf(d: InvoiceDoc, by: SpendDimension): Keyed {
  if (by === 'category') return { key: d.category, label: d.category ? categoryLabel(d.category) : 'ללא קטגוריה', filter: { category: d.category } };
  if (by === 'payMethod') {
    // The pay mark in force (payMarkInForce: the owner's mark, the paid payment's method, the pay rule, the AI), which invoicesList's payMark filters on.
    const { mark } = docPayMark(d);
    return { key: mark, label: PAY_MARK_LABELS[mark], filter: { payMark: mark } };
  }
  // invoicesList cannot filter "no supplier": that row links to the whole range.
  if (!d.supplierKey) return { key: '', label: 'ללא ספק', filter: {} };
  return { key: d.supplierKey, label: d.supplierName || d.supplierKey, filter: { supplierKey: d.supplierKey } };
}

/** Sums the invoices of [from, to] (invoice date) by month and by `by`, per currency. */
export function summarize(docs: readonly InvoiceDoc[], from: string, to: string, by: SpendDimension): SpendSummary {
  const rows = new Map<string, SpendRow>();
  const byMonth = new Map<string, SpendRow>();
  const byKey = new Map<string, SpendRow>();
  const totals = new Map<string, SpendRow>();
  let withoutAmount = 0;
  let duplicates = 0;
  const flagged: string[] = [];
  // How many invoices invoicesList lists for each filter (every invoice of the range, counted or not): a row is exact when it counted them all.
  const listed = new Map<string, number>();
  const filterId = (f: Partial<SpendFilter>) => JSON.stringify([f.from, f.to, f.category, f.supplierKey, f.payMark]);
  const clampMonth = (m: string) => ({ from: `${m}-01` < from ? from : `${m}-01`, to: lastDayOf(m) > to ? to : lastDayOf(m) });
  let flag = false;
  const add = (map: Map<string, SpendRow>, id: string, base: () => Omit<SpendRow, 'count' | 'totalMinor' | 'vatMinor' | 'netMinor' | 'withoutVat' | 'vatIsTotal'>, total: number, vat: number | null) => {
    let r = map.get(id);
    if (!r) map.set(id, (r = { ...base(), count: 0, totalMinor: 0, vatMinor: 0, netMinor: 0, withoutVat: 0, vatIsTotal: 0 }));
    r.count++;
    if (flag) r.vatIsTotal++;
    r.totalMinor += total;
    if (vat === null) r.withoutVat++;
    else {
      r.vatMinor += vat;
      r.netMinor += total - vat;
    }
  };
  for (const d of docs) {
    if (d.date < from || d.date > to) continue;
    const month = d.date.slice(0, 7);
    const k = keyOf(d, by);
    // A set: when the range is one whole month, its month filter and its range filter are one filter, counted once.
    for (const id of new Set([{ ...clampMonth(month), ...k.filter }, clampMonth(month), { from, to, ...k.filter }, { from, to }].map(filterId))) listed.set(id, (listed.get(id) ?? 0) + 1);
    if (d.duplicateOf) {
      duplicates++;
      continue;
    }
    const r = d.reading;
    const currency = r?.currency;
    if (!r || r.totalMinor === null || r.totalMinor === undefined || !currency || !(CURRENCIES as readonly string[]).includes(currency)) {
      withoutAmount++;
      continue;
    }
    // A credit note takes money back: it counts against the spend.
    const sign = r.docType === 'credit_note' ? -1 : 1;
    const total = sign * Math.abs(r.totalMinor);
    const vat = r.vatMinor === null || r.vatMinor === undefined ? null : sign * Math.abs(r.vatMinor);
    flag = vatIsTotal(r);
    if (flag) flagged.push(d.docId);
    add(rows, `${month}\u0000${k.key}\u0000${currency}`, () => ({ month, key: k.key, label: k.label, currency, filter: { ...clampMonth(month), ...k.filter }, exact: false }), total, vat);
    add(byMonth, `${month}\u0000${currency}`, () => ({ month, key: null, label: null, currency, filter: clampMonth(month), exact: false }), total, vat);
    add(byKey, `${k.key}\u0000${currency}`, () => ({ month: null, key: k.key, label: k.label, currency, filter: { from, to, ...k.filter }, exact: false }), total, vat);
    add(totals, currency, () => ({ month: null, key: null, label: null, currency, filter: { from, to }, exact: false }), total, vat);
  }
  // invoicesList has no currency filter, and lists duplicates and unread invoices too: exact only when the list holds this row's invoices alone.
  for (const map of [rows, byMonth, byKey, totals]) for (const r of map.values()) r.exact = listed.get(filterId(r.filter)) === r.count;
  const byCurrency = (a: SpendRow, b: SpendRow) => CURRENCIES.indexOf(a.currency) - CURRENCIES.indexOf(b.currency);
  const bySize = (a: SpendRow, b: SpendRow) => byCurrency(a, b) || b.totalMinor - a.totalMinor || (a.key ?? '').localeCompare(b.key ?? '');
  return {
    from,
    to,
    by,
    rows: [...rows.values()].sort((a, b) => a.month!.localeCompare(b.month!) || bySize(a, b)),
    byMonth: [...byMonth.values()].sort((a, b) => a.month!.localeCompare(b.month!) || byCurrency(a, b)),
    byKey: [...byKey.values()].sort(bySize),
    totals: [...totals.values()].sort(byCurrency),
    withoutAmount,
    duplicates,
    vatIsTotal: flagged,
  };
}

/** Reads the invoices of [from, to] by invoice date (the date-range query invoicesList uses, so its index serves it). */
export async function spendSummary(store: DocStore, businessId: string, from: string, to: string, by: SpendDimension): Promise<SpendSummary> {
  checkRange(from, to);
  const docs = await store.query({
    collection: invoicesPath(businessId),
    where: [
      ['date', '>=', from],
      ['date', '<=', to],
    ],
    orderBy: [
      ['date', 'desc'],
      ['createdAtMs', 'desc'],
    ],
  });
  return summarize(
    docs.map((d) => d.data as unknown as InvoiceDoc),
    from,
    to,
    by,
  );
}

const DIMENSION_COLUMN: Record<SpendDimension, CsvColumn> = {
  category: { he: 'קטגוריה', en: 'Category' },
  supplier: { he: 'ספק', en: 'Supplier' },
  payMethod: { he: 'אמצעי תשלום', en: 'Pay method' },
};

/** Minor units as a plain major-unit number ("118.00", "-12.50"), which spreadsheets sum. */
export function majorUnits(minor: number): string {
  // Integer arithmetic: no binary fraction ever shows up in a cell.
  const a = Math.abs(minor);
  return `${minor < 0 ? '-' : ''}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

/** The CSV of a summary's month × dimension rows, in the one CSV form (core/csv.ts). */
export function spendCsv(s: SpendSummary): Buffer {
  const columns: CsvColumn[] = [
    { he: 'מתאריך', en: 'From' },
    { he: 'עד תאריך', en: 'To' },
    { he: 'מזהה', en: 'Key' },
    DIMENSION_COLUMN[s.by],
    { he: 'מטבע', en: 'Currency' },
    { he: 'חשבוניות', en: 'Invoices' },
    { he: 'סכום', en: 'Total' },
    { he: 'מע"מ', en: 'VAT' },
    { he: 'לפני מע"מ', en: 'Net' },
    { he: 'בלי מע"מ ידוע', en: 'Without VAT' },
    { he: 'מע"מ = סכום', en: 'VAT = total' },
  ];
  return csvFile(
    columns,
    s.rows.map((r) => [r.filter.from, r.filter.to, r.key, r.label, r.currency, r.count, majorUnits(r.totalMinor), majorUnits(r.vatMinor), majorUnits(r.netMinor), r.withoutVat, r.vatIsTotal]),
  );
}
