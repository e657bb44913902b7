import archiver from 'archiver';
import { PassThrough, type Readable } from 'node:stream';
import type { Services } from '../../core/context.ts';
import { ZIP_LIFETIME_MS, type FileRef } from '../../core/files.ts';
import { sanitizeFileName } from '../../core/text.ts';
import { csvFile, type CsvColumn } from '../../core/csv.ts';
import { formatAmount, type Currency } from '../money.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { GENERAL_FOLDER, invoicesPath, type InvoiceDoc, type PayMark } from '../invoices/invoices.ts';
import { docPayMark, PAY_MARK_LABELS, paymentPayMark, type PayMarkBy } from '../invoices/payMarks.ts';
import { categoryLabel } from '../invoices/categories.ts';
import { paymentsPath, type PaymentRecord } from '../payments/payments.ts';
import { certainFigures, paymentsOfDocs } from '../invoices/readingMismatch.ts';
import { figuresCorrected } from '../invoices/corrections.ts';
import { accTree, readAccFolders, type AccFolderRecord, type AccSource, type ACC_PAY_METHODS } from './accountant.ts';
// Types only: the statements and signup modules pull in provider SDKs and PDF libraries a ZIP never needs.
import type { StatementRecord } from '../statements/statements.ts';
import type { SignupDocRecord } from '../signupDocs/signupDocs.ts';

const statementsPath = (b: string) => `businesses/${b}/statements`;
const signupDocsPath = (b: string) => `businesses/${b}/signupDocs`;

/**
 * The accountant's ZIP, streamed: `archiver` reads one stored file at a time from the file store and
 * writes the archive straight back into it (a local file, or a Cloud Storage write stream). Neither the
 * ZIP nor more than one file is ever held in memory. Entries are stored, not deflated: invoices are
 * PDFs and photos, already compressed.
 */

export interface ZipRange {
  /** YYYY-MM, inclusive. */
  from?: string;
  to?: string;
}

/** What the index says of a file: all optional, statements have none of it. */
export interface EntryFacts {
  date?: string | null;
  supplier?: string | null;
  number?: string | null;
  totalMinor?: number | null;
  vatMinor?: number | null;
  currency?: Currency | null;
  category?: string | null;
  payMethod?: string | null;
}

export interface ZipEntry {
  /** Path inside the ZIP, folder names joined by `/`. */
  name: string;
  fileId: string;
  facts?: EntryFacts;
}

export interface SourceFile {
  fileId: string;
  /** The name as uploaded; kept only when the facts cannot name the file (statements). */
  fileName: string;
  subdir?: string;
  /** The record behind the file: a document counts once per folder, however many sources find it. */
  key?: string;
  /** Words that say what the file is when there is no reading (a proof, a signed form). */
  label?: string;
  facts?: EntryFacts;
}

/** Where each source kind finds its files; `subdir` nests them (statements: account, then month). */
export type SourceResolver = (s: Services, businessId: string, source: AccSource, range: ZipRange) => Promise<SourceFile[]>;

/** The Israel day of an ISO instant: a proof paid at 00:30 on the 28th Israel time is of the 28th. */
const israelDay = (instant: string | null | undefined) => {
  const ms = Date.parse(instant ?? '');
  return Number.isFinite(ms) ? jerusalemDay(ms) : null;
};

const inMonthRange = (day: string | null | undefined, r: ZipRange) => {
  const month = (day ?? '').slice(0, 7);
  if (r.from && (!month || month < r.from)) return false;
  if (r.to && (!month || month > r.to)) return false;
  return true;
};

type AccPayMethod = (typeof ACC_PAY_METHODS)[number];
const ACC_METHOD: Record<PayMark, AccPayMethod> = { paid_card: 'card', paid_paypal: 'paypal', paid_transfer: 'bank_transfer', paid_other: 'other', unpaid: 'unknown', not_payable: 'unknown' };

/** A source's pay method of an invoice: the AI's own word while nothing overrides it (cash, check), else the mark in force's. */
const accPayMethod = (d: InvoiceDoc, inForce: { mark: PayMark; by: PayMarkBy }): AccPayMethod =>
  inForce.by === 'ai' && d.reading?.payMethod ? d.reading.payMethod : ACC_METHOD[inForce.mark];

/**
 * The invoice folder a package puts a document in: a card folder the AI's card reading chose (default filing)
 * holds it only while the mark in force is a card payment; once the owner, the payment or a pay rule says
 * otherwise, it goes where a non-card invoice goes, the general folder. Hand and folder-rule filing stand.
 */
export const packageFolderId = (d: InvoiceDoc, inForce: { mark: PayMark; by: PayMarkBy }): string =>
  d.folderBy === 'default' && /^card-\d{4}$/.test(d.folderId) && inForce.mark !== 'paid_card' && inForce.by !== 'ai' && inForce.by !== 'none' ? GENERAL_FOLDER : d.folderId;

const invoices: SourceResolver = async (s, businessId, source, range) => {
  const docs = (await s.store.query({ collection: invoicesPath(businessId), orderBy: [['createdAtMs', 'desc']] })).map((d) => d.data as unknown as InvoiceDoc);
  // A reading that disagrees with its payment does not name the file: the payment's figures do.
  const payments = await paymentsOfDocs(s.store, businessId, docs);
  return (
    docs
      // A stored duplicate is the same invoice again: left out, as the spend report leaves it out.
      .filter((d) => !d.duplicateOf && inMonthRange(d.date, range))
      .map((d) => ({ d, inForce: docPayMark(d) }))
      .filter(({ d, inForce }) => !source.folderIds.length || source.folderIds.includes(packageFolderId(d, inForce)))
      .filter(({ d, inForce }) => !source.payMethods.length || source.payMethods.includes(accPayMethod(d, inForce)))
      .map(({ d, inForce }) => ({
        fileId: d.fileId,
        fileName: d.fileName,
        key: `invoice:${d.docId}`,
        facts: {
          date: d.date,
          supplier: d.supplierName || d.reading?.issuer.name || null,
          number: d.reading?.number ?? null,
          // Figures the owner corrected are stated as corrected, even against the payment.
          ...certainFigures(d.reading, figuresCorrected(d.corrections) ? null : payments.get(d.paymentId ?? '')),
          category: d.category ? categoryLabel(d.category) : null,
          payMethod: PAY_MARK_LABELS[inForce.mark],
        },
      }))
  );
};

const proofs: SourceResolver = async (s, businessId, _source, range) => {
  const paid = (await s.store.query({ collection: paymentsPath(businessId), where: [['status', '==', 'paid']], orderBy: [['createdAtMs', 'desc']] })).map((d) => d.data as unknown as PaymentRecord);
  return paid
    .map((p) => ({ p, day: israelDay(p.paidAt) }))
    .filter(({ p, day }) => p.proof && inMonthRange(day, range))
    .map(({ p, day }) => {
      const mark = paymentPayMark(p);
      return {
        fileId: p.proof!.fileId,
        fileName: p.proof!.fileName,
        key: `proof:${p.id}`,
        label: 'אסמכתא',
        facts: { date: day, supplier: p.supplierName, totalMinor: p.amountAgorot, currency: p.currency, payMethod: mark ? PAY_MARK_LABELS[mark] : null },
      };
    });
};

/** The ready statements of the range (account ids: all when empty), by account and month. */
export async function readyStatements(s: Services, businessId: string, accountIds: string[], range: ZipRange): Promise<StatementRecord[]> {
  const docs = await s.store.query({ collection: statementsPath(businessId) });
  return docs
    .map((d) => d.data as unknown as StatementRecord)
    .filter((st) => st.status === 'ready' && (!accountIds.length || accountIds.includes(st.accountId)) && inMonthRange(`${st.month}-01`, range))
    .sort((a, b) => a.accountName.localeCompare(b.accountName, 'he') || a.month.localeCompare(b.month));
}

const statements: SourceResolver = async (s, businessId, source, range) =>
  (await readyStatements(s, businessId, source.accountIds, range)).flatMap((st) =>
    st.files.map((f) => ({ fileId: f.fileId, fileName: f.fileName, key: `statement:${f.fileId}`, subdir: `${entryPart(st.accountName, st.accountId)}/${st.month}` })),
  );

/** Signed forms: the newest filled copy of each signup document made in the range. */
const signed: SourceResolver = async (s, businessId, _source, range) => {
  const docs = (await s.store.query({ collection: signupDocsPath(businessId) })).map((d) => d.data as unknown as SignupDocRecord);
  return docs.flatMap((d) => {
    const newest = [...(d.filled ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    const day = israelDay(newest?.createdAt);
    return newest && inMonthRange(day, range) ? [{ fileId: newest.fileId, fileName: newest.fileName, key: `signed:${newest.fileId}`, facts: { date: day } }] : [];
  });
};

export const ZIP_SOURCES: Record<AccSource['kind'], SourceResolver> = { invoices, proofs, statements, signed };

const extOf = (fileName: string) => {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 && fileName.length - dot <= 6 ? fileName.slice(dot).toLowerCase() : '';
};

/**
 * A name that says what the file is: date, supplier, number and total, e.g. `2026-10-03 בזק 40211 ₪118.00.pdf`
 * (docs/decisions.md). Without a reading, the date and a label or the uploaded name; statements keep theirs.
 */
export function describedName(f: { fileName: string; label?: string; facts?: EntryFacts }): string {
  const x = f.facts;
  if (!x) return f.fileName;
  const ext = extOf(f.fileName);
  const money = x.totalMinor !== null && x.totalMinor !== undefined && x.currency ? formatAmount(x.totalMinor, x.currency) : '';
  const words = [x.date, x.supplier, f.label, x.number, money].filter((w): w is string => Boolean(w && w.trim()));
  // With nothing but a date, the uploaded name still tells the accountant something.
  if (words.length <= 1) words.push(ext ? f.fileName.slice(0, -ext.length) : f.fileName);
  return words.join(' ').replace(/\s+/g, ' ') + ext;
}

/**
 * One part of an entry's path, sanitized. A slash inside a name ("MOVE 24/7 בע"מ", "12/2026") is not a folder:
 * it becomes a dash, so the rest of the name is kept.
 */
export const entryPart = (name: string, fallback: string) => sanitizeFileName(name.replace(/[\\/]/g, '-'), fallback);

/** Entry names: the folder path, a sanitized file name, and " (2)", " (3)" … when two collide. */
export function uniqueNames(entries: { dir: string; fileName: string; fileId: string; facts?: EntryFacts }[]): ZipEntry[] {
  const used = new Set<string>();
  return entries.map((e) => {
    const base = entryPart(e.fileName, 'file');
    const dot = base.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
    let name = e.dir ? `${e.dir}/${base}` : base;
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${e.dir ? e.dir + '/' : ''}${stem} (${n})${ext}`;
    used.add(name.toLowerCase());
    return { name, fileId: e.fileId, ...(e.facts ? { facts: e.facts } : {}) };
  });
}

/** What goes in the ZIP of `folderId` (or the whole tree), in tree order. */
export async function planAccZip(s: Services, businessId: string, folderId: string | undefined, range: ZipRange): Promise<{ entries: ZipEntry[]; searched: string[] }> {
  const all = await readAccFolders(s.store, businessId);
  const tree = accTree(all);
  let scope = tree;
  if (folderId) {
    const root = tree.find((e) => e.folder.id === folderId);
    if (!root) return { entries: [], searched: [] };
    const depth0 = root.depth;
    const start = tree.indexOf(root);
    const end = tree.findIndex((e, i) => i > start && e.depth <= depth0);
    scope = tree.slice(start, end === -1 ? undefined : end);
  }
  const raw: { dir: string; fileName: string; fileId: string; facts?: EntryFacts }[] = [];
  const searched: string[] = [];
  // Each record once per folder: two sources of one folder (or one source listing a file twice) never double it.
  const placed = new Set<string>();
  for (const e of scope) {
    const src = e.folder.source;
    if (!src) continue;
    const dir = e.path.map((p) => entryPart(p, 'folder')).join('/');
    searched.push(`${dir}: ${describeSource(src)}`);
    const resolve = ZIP_SOURCES[src.kind];
    if (!resolve) continue;
    for (const f of await resolve(s, businessId, src, range)) {
      const at = f.subdir ? `${dir}/${f.subdir}` : dir;
      const key = `${at}\u0000${f.key ?? f.fileId}`;
      if (placed.has(key)) continue;
      placed.add(key);
      raw.push({ dir: at, fileName: describedName(f), fileId: f.fileId, facts: f.facts });
    }
  }
  return { entries: uniqueNames(raw), searched };
}

const describeSource = (src: AccSource) =>
  [src.kind, src.folderIds.length ? `folders ${src.folderIds.join(', ')}` : '', src.payMethods.length ? `pay methods ${src.payMethods.join(', ')}` : '', src.accountIds.length ? `accounts ${src.accountIds.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');

/** Streams the entries into one stored ZIP; an empty selection still makes a ZIP, with a README of what was searched. */
export async function writeZip(s: Services, businessId: string, zipName: string, entries: ZipEntry[], readme: string): Promise<{ file: FileRef; entries: number; missing: number }> {
  const archive = archiver('zip', { store: true });
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  archive.pipe(out);
  let missing = 0;
  // A generated package is a copy: its link works ZIP_LIFETIME_MS, then the file is deleted.
  const saving = s.files.saveStream(businessId, { fileName: zipName, contentType: 'application/zip', lifetimeMs: ZIP_LIFETIME_MS }, out);
  const feeding = (async () => {
    // Every package explains itself: a README (Hebrew, then English) and an index of its files.
    archive.append(readme, { name: 'README.txt' });
    archive.append(zipIndex(entries), { name: 'index.csv' });
    for (const e of entries) {
      const stream = await s.files.readStream(businessId, e.fileId);
      if (!stream) {
        missing++;
        continue;
      }
      // One file at a time: wait until archiver has taken this entry before opening the next.
      await new Promise<void>((resolve, reject) => {
        archive.once('entry', () => resolve());
        stream.once('error', reject);
        archive.append(stream as Readable, { name: e.name });
      });
    }
    await archive.finalize();
  })();
  feeding.catch((e) => archive.abort() || out.destroy(e));
  const [file] = await Promise.all([saving, feeding]);
  return { file, entries: entries.length - missing, missing };
}

const INDEX_COLUMNS: CsvColumn[] = [
  { he: 'קובץ', en: 'File' },
  { he: 'תיקייה', en: 'Folder' },
  { he: 'תאריך', en: 'Date' },
  { he: 'ספק', en: 'Supplier' },
  { he: 'מספר', en: 'Number' },
  { he: 'סכום', en: 'Total' },
  { he: 'מע"מ', en: 'VAT' },
  { he: 'מטבע', en: 'Currency' },
  { he: 'קטגוריה', en: 'Category' },
  { he: 'אמצעי תשלום', en: 'Pay method' },
];

const major = (minor: number | null | undefined) => (minor === null || minor === undefined ? null : (minor / 100).toFixed(2));

/** index.csv: one row per file of the package, in the one CSV form of core/csv.ts. */
export function zipIndex(entries: readonly ZipEntry[]): Buffer {
  return csvFile(
    INDEX_COLUMNS,
    entries.map((e) => {
      const slash = e.name.lastIndexOf('/');
      const x = e.facts ?? {};
      return [e.name.slice(slash + 1), slash > 0 ? e.name.slice(0, slash) : '', x.date, x.supplier, x.number, major(x.totalMinor), major(x.vatMinor), x.currency, x.category, x.payMethod];
    }),
  );
}

/** What the accountant's package holds, said in its README. */
const ACC_ABOUT = {
  he: [
    'חשבוניות ואסמכתאות נקראות לפי תאריך, ספק, מספר וסכום; דפי חשבון שומרים את שמם, בתיקייה לפי חשבון וחודש. הקובץ index.csv מפרט כל קובץ: תאריך, ספק, מספר, סכום, מע"מ, מטבע, קטגוריה, אמצעי תשלום ותיקייה.',
    'אמצעי התשלום הוא מה שבעל העסק סימן, או איך שולם התשלום במערכת, לפני מה שה-AI קרא מהחשבונית. חשבונית שנשמרה כעותק כפול של חשבונית אחרת אינה בחבילה, כמו בדוח ההוצאות.',
  ],
  en: [
    'Invoices and proofs are named by date, supplier, number and total; statements keep their names, in account and month folders. index.csv lists every file with its date, supplier, number, total, VAT, currency, category, pay method and folder.',
    "The pay method is the one the owner marked, or how the payment was paid here, before what the AI read on the invoice. An invoice stored as a duplicate of another is left out, as in the spend report.",
  ],
};

/** README.txt of a package: what it holds (`about`) and how it is laid out, in Hebrew and then in English. */
export function zipReadme(p: { title: { he: string; en: string }; range: ZipRange; files: number; about: { he: string[]; en: string[] }; notes?: { he: string[]; en: string[] } }): string {
  const months = p.range.from || p.range.to ? `${p.range.from ?? '…'} – ${p.range.to ?? '…'}` : null;
  return [
    p.title.he,
    `חודשים: ${months ?? 'כל החודשים'}. קבצים: ${p.files}.`,
    ...(p.files ? p.about.he : ['לא נמצא דבר: החבילה ריקה.']),
    ...(p.notes?.he ?? []),
    '',
    '---',
    '',
    p.title.en,
    `Months: ${months ?? 'all months'}. Files: ${p.files}.`,
    ...(p.files ? p.about.en : ['Nothing matched: this package is empty.']),
    ...(p.notes?.en ?? []),
    '',
  ].join('\n');
}

/**
 * The accountant's package of `folderId` (or the whole tree) for a month range, stored: what accZip returns
 * and accZipSend mails. `now` names a ZIP without a range by its day.
 */
export async function buildAccZip(s: Services, businessId: string, folderId: string | undefined, range: ZipRange, now: number): Promise<{ file: FileRef; entries: number; missing: number }> {
  const { entries, searched } = await planAccZip(s, businessId, folderId, range);
  const readme = zipReadme({
    title: { he: 'חבילה לרואה החשבון', en: 'Package for the accountant' },
    range,
    files: entries.length,
    about: ACC_ABOUT,
    notes: searched.length
      ? { he: ['התיקיות שנבדקו:', ...searched.map((l) => `- ${l}`)], en: ['Folders searched:', ...searched.map((l) => `- ${l}`)] }
      : { he: ['לאף תיקייה של רואה החשבון אין כלל מקור.'], en: ['No accountant folder has a source rule (accFolderSetSource, or accFolderTemplate).'] },
  });
  const stamp = jerusalemDay(now);
  const zipName = `accountant-${range.from || range.to ? `${range.from ?? 'start'}_${range.to ?? 'now'}` : stamp}.zip`;
  return writeZip(s, businessId, zipName, entries, readme);
}

export const rangeText = (r: ZipRange) => (r.from || r.to ? `${r.from ?? '…'} – ${r.to ?? '…'}` : 'all months');

export type { AccFolderRecord };
