import { z } from 'zod';
import type { DocStore, Reader } from '../../ports/store.ts';
import { notFound } from '../../core/errors.ts';
import { AI_PAY_METHODS, cardFolderId, DOC_TYPES, GENERAL_FOLDER, invoicesPath, PETTY_CASH_FOLDER, type InvoiceDoc } from './invoices.ts';
import { foldersPath, missingBuiltInFolders, type FolderRecord } from './folders.ts';

/**
 * Folder rules (spec §2) at `businesses/{b}/folderRules/{id}`, and the filing decision itself.
 * `fileDocument` is pure: uploads, imports, folderSync and rule re-filing all call it.
 */

/** The conditions; "" (or amountOp "") means "any". Every condition that is set must hold. */
export const whenSchema = z.strictObject({
  from: z.string().trim().max(254).default('').describe('Mail sender contains this (mailbox invoices only).'),
  subject: z.string().trim().max(200).default('').describe('Mail subject contains this (mailbox invoices only).'),
  words: z.string().trim().max(500).default('').describe('Any of these words (space-separated) appears in the mail subject, file name, note, issuer name or line items.'),
  notWords: z.string().trim().max(500).default('').describe('None of these words appears there.'),
  supplier: z.string().trim().max(254).default('').describe('Supplier or issuer key exactly, or part of the issuer name.'),
  amountOp: z.enum(['', 'gt', 'lt']).default('').describe('Compare the total with amount: gt (greater than) or lt (less than).'),
  /** Major units (spec §1 convention 4). */
  amount: z.number().min(0).max(1e9).default(0).describe('Amount in major units (e.g. 250.5 for ₪250.50), used with amountOp.'),
  currency: z.enum(['', 'ILS', 'USD', 'EUR']).default('').describe('Invoice currency.'),
  docType: z.enum(['', ...DOC_TYPES]).default('').describe('Document type the AI read.'),
  payMethod: z.enum(['', ...AI_PAY_METHODS]).default('').describe('Pay method the AI read.'),
  category: z.string().trim().max(64).default('').describe('Expense category id (categoriesList).'),
  accountId: z.string().trim().max(128).default('').describe('Mailbox account the invoice was imported from.'),
  source: z.enum(['', 'mailbox', 'upload', 'supplier']).default('').describe('Where the invoice came from.'),
});
export type RuleWhen = z.output<typeof whenSchema>;

export interface FolderRuleRecord {
  id: string;
  when: RuleWhen;
  /** "" only for bodyInvoice rules, which turn mail bodies into invoices and never place a document. */
  folderId: string;
  bodyInvoice: boolean;
  enabled: boolean;
  /** Lower runs first. */
  order: number;
  createdAt: string;
  updatedAt: string;
  /** Where a batched re-filing by this rule continues ("" = from the start). */
  applyCursor: string;
}

export const folderRulesPath = (businessId: string, id = '') => `businesses/${businessId}/folderRules${id ? '/' + id : ''}`;

/** Keeps reorder (one write per rule) well inside one 500-write commit. */
export const MAX_RULES = 200;

/** The document fields filing looks at; a mailbox import may match a mail before its document exists (no note yet). */
export type FileableDoc = Pick<InvoiceDoc, 'source' | 'mailbox' | 'fileName' | 'reading' | 'category' | 'supplierKey' | 'supplierName' | 'vendorKey'> & { note?: string };

export interface Placement {
  folderId: string;
  folderBy: 'rule' | 'default';
  folderRuleId: string | null;
}

const norm = (s: string | null | undefined) => (s ?? '').normalize('NFKC').toLowerCase().trim();
const wordsOf = (s: string) => norm(s).split(/[\s,;]+/).filter(Boolean);

/** The text `words` and `notWords` search, on every source: mail subject, file name, note, issuer name and line items. */
function searchedText(doc: FileableDoc): string {
  const items = (doc.reading?.lineItems ?? []).map((l) => l.description);
  return [doc.mailbox?.subject, doc.fileName, doc.note, doc.reading?.issuer.name, ...items].map(norm).join('\n');
}

/**
 * Whether every set condition of `when` holds for `doc` (case-insensitive text, substring
 * matches). Mail conditions (from, subject, accountId) hold only for documents with a
 * mailbox origin; words and notWords hold on every source. `enabled` and `folderId` are fileDocument's concern, not this one's.
 */
export function matchRule(rule: Pick<FolderRuleRecord, 'when'>, doc: FileableDoc): boolean {
  const w = rule.when;
  const mail = doc.mailbox;
  const reading = doc.reading;
  if ((w.from || w.subject || w.accountId) && !mail) return false;
  if (w.from && !norm(mail!.from).includes(norm(w.from))) return false;
  if (w.subject && !norm(mail!.subject).includes(norm(w.subject))) return false;
  if (w.accountId && mail!.accountId !== w.accountId) return false;
  if (w.words || w.notWords) {
    const text = searchedText(doc);
    const words = wordsOf(w.words);
    if (words.length && !words.some((x) => text.includes(x))) return false;
    if (wordsOf(w.notWords).some((x) => text.includes(x))) return false;
  }
  if (w.supplier && !supplierMatches(norm(w.supplier), doc)) return false;
  if (w.amountOp) {
    const total = reading?.totalMinor;
    if (total === null || total === undefined) return false;
    const limit = Math.round(w.amount * 100);
    if (w.amountOp === 'gt' ? !(total > limit) : !(total < limit)) return false;
  }
  if (w.currency && reading?.currency !== w.currency) return false;
  if (w.docType && reading?.docType !== w.docType) return false;
  if (w.payMethod && reading?.payMethod !== w.payMethod) return false;
  if (w.category && doc.category !== w.category) return false;
  if (w.source && doc.source !== w.source) return false;
  return true;
}

/** A supplier key or issuer key equal to the condition, or a supplier or issuer name containing it. */
function supplierMatches(want: string, doc: FileableDoc): boolean {
  if (norm(doc.supplierKey) === want || norm(doc.vendorKey) === want) return true;
  return [doc.supplierName, doc.reading?.issuer.name].some((n) => norm(n) !== '' && norm(n).includes(want));
}

/** Where a document goes when no rule takes it: its card's folder, petty cash for cash, else general. */
export function defaultFolder(doc: FileableDoc): string {
  const r = doc.reading;
  if (r?.cardEnding && /^\d{4}$/.test(r.cardEnding) && (r.payMethod === 'card' || r.payMethod === null)) return cardFolderId(r.cardEnding);
  if (r?.payMethod === 'cash') return PETTY_CASH_FOLDER;
  return GENERAL_FOLDER;
}

export function compareRules(a: Pick<FolderRuleRecord, 'order' | 'createdAt' | 'id'>, b: Pick<FolderRuleRecord, 'order' | 'createdAt' | 'id'>): number {
  return a.order - b.order || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

/**
 * The folder for a document: the first enabled rule, in priority order, that has a folder and
 * matches; otherwise the default folder (folderBy 'default'). The caller makes sure a built-in
 * target exists (folders.missingBuiltInFolders).
 */
export function fileDocument(rules: readonly FolderRuleRecord[], doc: FileableDoc): Placement {
  for (const rule of [...rules].sort(compareRules)) {
    if (rule.enabled && rule.folderId !== '' && matchRule(rule, doc)) return { folderId: rule.folderId, folderBy: 'rule', folderRuleId: rule.id };
  }
  return { folderId: defaultFolder(doc), folderBy: 'default', folderRuleId: null };
}

/** Every rule of a business in priority order. */
export async function loadRules(reader: Reader, businessId: string): Promise<FolderRuleRecord[]> {
  const docs = await reader.query({ collection: folderRulesPath(businessId), orderBy: [['order', 'asc']] });
  return docs.map((d) => d.data as unknown as FolderRuleRecord).sort(compareRules);
}

/**
 * Filing for a new document (upload, import, supplier attachment), inside the caller's
 * transaction: reads only. Write `createFolders` (at foldersPath) along with the document.
 */
export async function planFiling(reader: Reader, businessId: string, doc: FileableDoc, now: string): Promise<{ placement: Placement; createFolders: FolderRecord[] }> {
  const placement = fileDocument(await loadRules(reader, businessId), doc);
  return { placement, createFolders: await missingBuiltInFolders(reader, businessId, [placement.folderId], now) };
}

export const ruleOutput = z.object({
  id: z.string(),
  when: z.object({
    from: z.string(),
    subject: z.string(),
    words: z.string(),
    notWords: z.string(),
    supplier: z.string(),
    amountOp: z.enum(['', 'gt', 'lt']),
    amount: z.number(),
    currency: z.string(),
    docType: z.string(),
    payMethod: z.string(),
    category: z.string(),
    accountId: z.string(),
    source: z.string(),
  }),
  folderId: z.string(),
  bodyInvoice: z.boolean(),
  enabled: z.boolean(),
  order: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type RuleView = z.output<typeof ruleOutput>;

export function ruleView(r: FolderRuleRecord): RuleView {
  return { id: r.id, when: { ...r.when }, folderId: r.folderId, bodyInvoice: r.bodyInvoice, enabled: r.enabled, order: r.order, createdAt: r.createdAt, updatedAt: r.updatedAt };
}

/** Documents a re-filing batch reads per call; their updates stay well inside one commit. */
export const REFILE_BATCH = 200;

/** Placements rules may change: rule-placed, default-placed and unfiled ones; never hand-filed ones. */
const REFILABLE: InvoiceDoc['folderBy'][] = ['rule', 'default'];

export interface RefileStep {
  /** Documents whose placement changed. */
  refiled: number;
  scanned: number;
  /** Refilable documents not scanned yet; call again while above 0. */
  remaining: number;
  /** Built-in folders created because a document was filed into one. */
  createdFolders: string[];
}

/**
 * One bounded step of re-filing by a rule: among the refilable documents (scanned in docId order,
 * continuing from the rule's applyCursor), those the rule matches or that it placed earlier are
 * filed again by all rules in priority order, so the outcome is what a new upload would get.
 */
export async function refileByRule(store: DocStore, businessId: string, ruleId: string, now: string): Promise<RefileStep> {
  const step = await store.runTransaction(async (tx) => {
    const ruleDoc = await tx.get(folderRulesPath(businessId, ruleId));
    if (!ruleDoc) throw notFound(`folder rule ${ruleId}`, 'rule');
    const rule = ruleDoc.data as unknown as FolderRuleRecord;
    const rules = await loadRules(tx, businessId);
    const docs = await tx.query({
      collection: invoicesPath(businessId),
      where: [['folderBy', 'in', REFILABLE], ['docId', '>', rule.applyCursor ?? '']],
      orderBy: [['docId', 'asc']],
      limit: REFILE_BATCH + 1,
    });
    const batch = docs.slice(0, REFILE_BATCH);
    const changes: { path: string; placement: Placement }[] = [];
    for (const d of batch) {
      const doc = d.data as unknown as InvoiceDoc;
      const takes = rule.enabled && rule.folderId !== '' && matchRule(rule, doc);
      if (!takes && doc.folderRuleId !== rule.id) continue;
      const placement = fileDocument(rules, doc);
      if (placement.folderId === doc.folderId && placement.folderBy === doc.folderBy && placement.folderRuleId === doc.folderRuleId) continue;
      changes.push({ path: d.path, placement });
    }
    const created = await missingBuiltInFolders(tx, businessId, changes.map((c) => c.placement.folderId), now);
    for (const f of created) tx.set(foldersPath(businessId, f.id), { ...f });
    for (const c of changes) tx.update(c.path, { ...c.placement, updatedAt: now });
    const cursor = docs.length > REFILE_BATCH ? String(batch.at(-1)!.data.docId) : '';
    tx.update(ruleDoc.path, { applyCursor: cursor });
    return { refiled: changes.length, scanned: batch.length, cursor, createdFolders: created.map((f) => f.id) };
  });
  const remaining = step.cursor
    ? await store.count({ collection: invoicesPath(businessId), where: [['folderBy', 'in', REFILABLE], ['docId', '>', step.cursor]] })
    : 0;
  return { refiled: step.refiled, scanned: step.scanned, remaining, createdFolders: step.createdFolders };
}
