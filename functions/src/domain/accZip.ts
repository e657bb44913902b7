import archiver from 'archiver';
import { PassThrough, type Readable } from 'node:stream';
import type { Services } from '../core/context.ts';
import { ZIP_LIFETIME_MS, type FileRef } from '../core/files.ts';
import { sanitizeFileName } from '../core/text.ts';
import { invoicesPath, type InvoiceDoc } from './invoices.ts';
import { paymentsPath, type PaymentRecord } from './payments.ts';
import { accTree, readAccFolders, type AccFolderRecord, type AccSource } from './accountant.ts';
// Types only: the statements and signup modules pull in provider SDKs and PDF libraries a ZIP never needs.
import type { StatementRecord } from './statements.ts';
import type { SignupDocRecord } from './signupDocs.ts';

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

export interface ZipEntry {
  /** Path inside the ZIP, folder names joined by `/`. */
  name: string;
  fileId: string;
}

/** Where each source kind finds its files; `subdir` nests them (statements: account, then month). */
export type SourceResolver = (s: Services, businessId: string, source: AccSource, range: ZipRange) => Promise<{ fileId: string; fileName: string; subdir?: string }[]>;

const inMonthRange = (day: string | null | undefined, r: ZipRange) => {
  const month = (day ?? '').slice(0, 7);
  if (r.from && (!month || month < r.from)) return false;
  if (r.to && (!month || month > r.to)) return false;
  return true;
};

const invoices: SourceResolver = async (s, businessId, source, range) => {
  const docs = (await s.store.query({ collection: invoicesPath(businessId), orderBy: [['createdAtMs', 'desc']] })).map((d) => d.data as unknown as InvoiceDoc);
  return docs
    .filter((d) => !source.folderIds.length || source.folderIds.includes(d.folderId))
    .filter((d) => {
      if (!source.payMethods.length) return true;
      const m = d.reading?.payMethod ?? null;
      return m ? source.payMethods.includes(m as never) : source.payMethods.includes('unknown');
    })
    .filter((d) => inMonthRange(d.date, range))
    .map((d) => ({ fileId: d.fileId, fileName: d.fileName }));
};

const proofs: SourceResolver = async (s, businessId, _source, range) => {
  const paid = (await s.store.query({ collection: paymentsPath(businessId), where: [['status', '==', 'paid']], orderBy: [['createdAtMs', 'desc']] })).map((d) => d.data as unknown as PaymentRecord);
  return paid.filter((p) => p.proof && inMonthRange(p.paidAt, range)).map((p) => ({ fileId: p.proof!.fileId, fileName: `${p.supplierName} ${(p.paidAt ?? '').slice(0, 10)} ${p.proof!.fileName}` }));
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
    st.files.map((f) => ({ fileId: f.fileId, fileName: f.fileName, subdir: `${sanitizeFileName(st.accountName, st.accountId)}/${st.month}` })),
  );

/** Signed forms: the newest filled copy of each signup document made in the range. */
const signed: SourceResolver = async (s, businessId, _source, range) => {
  const docs = (await s.store.query({ collection: signupDocsPath(businessId) })).map((d) => d.data as unknown as SignupDocRecord);
  return docs.flatMap((d) => {
    const newest = [...(d.filled ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    return newest && inMonthRange(newest.createdAt, range) ? [{ fileId: newest.fileId, fileName: newest.fileName }] : [];
  });
};

export const ZIP_SOURCES: Record<AccSource['kind'], SourceResolver> = { invoices, proofs, statements, signed };

/** Entry names: the folder path, a sanitized file name, and " (2)", " (3)" … when two collide. */
export function uniqueNames(entries: { dir: string; fileName: string; fileId: string }[]): ZipEntry[] {
  const used = new Set<string>();
  return entries.map((e) => {
    const base = sanitizeFileName(e.fileName, 'file');
    const dot = base.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
    let name = e.dir ? `${e.dir}/${base}` : base;
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${e.dir ? e.dir + '/' : ''}${stem} (${n})${ext}`;
    used.add(name.toLowerCase());
    return { name, fileId: e.fileId };
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
  const raw: { dir: string; fileName: string; fileId: string }[] = [];
  const searched: string[] = [];
  for (const e of scope) {
    const src = e.folder.source;
    if (!src) continue;
    const dir = e.path.map((p) => sanitizeFileName(p, 'folder')).join('/');
    searched.push(`${dir}: ${describeSource(src)}`);
    const resolve = ZIP_SOURCES[src.kind];
    if (!resolve) continue;
    for (const f of await resolve(s, businessId, src, range)) raw.push({ dir: f.subdir ? `${dir}/${f.subdir}` : dir, fileName: f.fileName, fileId: f.fileId });
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
    if (!entries.length) archive.append(readme, { name: 'README.txt' });
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

export const rangeText = (r: ZipRange) => (r.from || r.to ? `${r.from ?? '…'} – ${r.to ?? '…'}` : 'all months');

export type { AccFolderRecord };
