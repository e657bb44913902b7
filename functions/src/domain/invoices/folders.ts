import { text } from '../../core/schema.ts';
import { z } from 'zod';
import type { Reader } from '../../ports/store.ts';
import { cardFolderId, GENERAL_FOLDER, invoicesPath, PETTY_CASH_FOLDER } from './invoices.ts';

/**
 * Invoice folders (spec §2 "Invoice folder and folder rule") at `businesses/{b}/folders/{id}`.
 * Built-ins have fixed ids (general, petty-cash, card-<ending>) so that creating one twice is harmless.
 */
export type FolderKind = 'general' | 'petty_cash' | 'card' | 'custom';

export interface FolderRecord {
  id: string;
  name: string;
  /** "" = top level. */
  parentId: string;
  kind: FolderKind;
  /** Card folders only. */
  cardEnding?: string;
  createdAt: string;
}

export const folderOutput = z.object({
  id: z.string(),
  name: z.string(),
  parentId: z.string(),
  kind: z.enum(['general', 'petty_cash', 'card', 'custom']),
  cardEnding: z.string().nullable(),
  createdAt: z.string(),
});
export type FolderView = z.output<typeof folderOutput>;

export const folderView = (f: FolderRecord): FolderView => ({
  id: f.id,
  name: f.name,
  parentId: f.parentId,
  kind: f.kind,
  cardEnding: f.cardEnding ?? null,
  createdAt: f.createdAt,
});

export const foldersPath = (businessId: string, id = '') => `businesses/${businessId}/folders${id ? '/' + id : ''}`;

export const MAX_FOLDER_NAME = 100;
/** Input schema of a folder name: trimmed, 1–100 characters, one line without controls or bidi overrides. */
export const folderName = () =>
  text(MAX_FOLDER_NAME).trim().min(1);

/** Keeps whole-tree reads small: foldersList (one count per folder) and folderDelete read every folder. */
export const MAX_FOLDERS = 400;

/** Built-ins that every business has, whether or not a card was ever seen. */
export const BASE_BUILT_INS = [GENERAL_FOLDER, PETTY_CASH_FOLDER] as const;

const CARD_ID = /^card-(\d{4})$/;

export const isBuiltInId = (id: string) => id === GENERAL_FOLDER || id === PETTY_CASH_FOLDER || CARD_ID.test(id);

/** The record a built-in id stands for, or null for any other id. Names are the dashboard's Hebrew labels. */
export function builtInRecord(id: string, createdAt: string): FolderRecord | null {
  if (id === GENERAL_FOLDER) return { id, name: 'כללי', parentId: '', kind: 'general', createdAt };
  if (id === PETTY_CASH_FOLDER) return { id, name: 'קופה קטנה', parentId: '', kind: 'petty_cash', createdAt };
  const card = CARD_ID.exec(id);
  if (card) return { id, name: `כרטיס ${card[1]}`, parentId: '', kind: 'card', cardEnding: card[1], createdAt };
  return null;
}

/** ensureBuiltIns, the pure part: which built-in records are missing given the ids that exist and the card endings seen. */
export function missingBuiltIns(existing: ReadonlySet<string>, cardEndings: Iterable<string>, createdAt: string): FolderRecord[] {
  const wanted = new Set<string>(BASE_BUILT_INS);
  for (const ending of cardEndings) if (/^\d{4}$/.test(ending)) wanted.add(cardFolderId(ending));
  return [...wanted].filter((id) => !existing.has(id)).map((id) => builtInRecord(id, createdAt)!);
}

/**
 * Reads which of `ids` are built-ins not stored yet and returns their records, for the caller to
 * write once its reads are done (transactions read before they write). Other ids are ignored.
 */
export async function missingBuiltInFolders(reader: Reader, businessId: string, ids: Iterable<string>, createdAt: string): Promise<FolderRecord[]> {
  const builtIns = [...new Set(ids)].filter(isBuiltInId);
  if (!builtIns.length) return [];
  const docs = await reader.getAll(builtIns.map((id) => foldersPath(businessId, id)));
  return builtIns.filter((_, i) => !docs[i]).map((id) => builtInRecord(id, createdAt)!);
}

/**
 * One folder by id; a base built-in that was never stored is returned as `stored: false` so a
 * mutating caller can create it, and so it is usable before the first folderSync.
 */
export async function readFolder(reader: Reader, businessId: string, id: string, createdAt: string): Promise<{ folder: FolderRecord; stored: boolean } | null> {
  const doc = await reader.get(foldersPath(businessId, id));
  if (doc) return { folder: doc.data as unknown as FolderRecord, stored: true };
  const base = (BASE_BUILT_INS as readonly string[]).includes(id) ? builtInRecord(id, createdAt) : null;
  return base ? { folder: base, stored: false } : null;
}

/** Every folder of a business, with the base built-ins filled in when not stored yet. */
export async function readAllFolders(reader: Reader, businessId: string, createdAt: string): Promise<{ folders: FolderRecord[]; unstored: FolderRecord[] }> {
  const docs = await reader.query({ collection: foldersPath(businessId) });
  const folders = docs.map((d) => d.data as unknown as FolderRecord);
  const unstored = missingBuiltIns(new Set(folders.map((f) => f.id)), [], createdAt);
  return { folders: [...folders, ...unstored], unstored };
}

/** Upper bound on distinct card endings looked up per call; each costs one document read. */
export const MAX_CARD_SCAN = 100;

/**
 * The distinct card endings on a business's invoices, by skipping from one value to the next on
 * the single-field index: one read per ending instead of one per invoice.
 */
export async function cardEndingsSeen(reader: Reader, businessId: string, max = MAX_CARD_SCAN): Promise<string[]> {
  const out: string[] = [];
  let after = '';
  while (out.length < max) {
    const [doc] = await reader.query({ collection: invoicesPath(businessId), where: [['reading.cardEnding', '>', after]], orderBy: [['reading.cardEnding', 'asc']], limit: 1 });
    const ending = (doc?.data.reading as { cardEnding?: unknown } | undefined)?.cardEnding;
    if (typeof ending !== 'string') break;
    out.push(ending);
    after = ending;
  }
  return out;
}

const nameKey = (name: string) => name.trim().normalize('NFC').toLocaleLowerCase();

/** Sibling names are unique, ignoring case and surrounding spaces; returns the clashing sibling. */
export function siblingWithName(folders: readonly FolderRecord[], parentId: string, name: string, exceptId = ''): FolderRecord | undefined {
  const key = nameKey(name);
  return folders.find((f) => f.parentId === parentId && f.id !== exceptId && nameKey(f.name) === key);
}

/** Ids of `rootId` and every folder below it. Tolerates a corrupt cycle by visiting each folder once. */
export function subtreeIds(folders: readonly FolderRecord[], rootId: string): string[] {
  const children = childrenByParent(folders);
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [rootId];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    for (const c of children.get(id) ?? []) stack.push(c.id);
  }
  return out;
}

/**
 * Whether putting `id` under `newParentId` would make a cycle: true when the new parent is the
 * folder itself or lies below it. `parentOf` walks up one level (undefined = unknown, stops).
 */
export function wouldCycle(id: string, newParentId: string, parentOf: (id: string) => string | undefined): boolean {
  const seen = new Set<string>();
  for (let at = newParentId; at; at = parentOf(at) ?? '') {
    if (at === id) return true;
    if (seen.has(at)) return false; // an existing cycle above; not ours to report
    seen.add(at);
  }
  return false;
}

function childrenByParent(folders: readonly FolderRecord[]): Map<string, FolderRecord[]> {
  const map = new Map<string, FolderRecord[]>();
  for (const f of folders) {
    const list = map.get(f.parentId) ?? [];
    list.push(f);
    map.set(f.parentId, list);
  }
  return map;
}

const KIND_RANK: Record<FolderKind, number> = { general: 0, petty_cash: 1, card: 2, custom: 3 };

/** Built-ins first (general, petty cash, cards by ending), then custom folders by name. */
export function compareFolders(a: FolderRecord, b: FolderRecord): number {
  return KIND_RANK[a.kind] - KIND_RANK[b.kind] || a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
}

export interface TreeEntry {
  folder: FolderRecord;
  depth: number;
  /** Names from the top level down to this folder. */
  path: string[];
  childIds: string[];
}

/**
 * The tree as a pre-order list: each folder is followed by its subtree. Folders whose parent is
 * missing (or that sit in a cycle) are listed at the top level so nothing is ever hidden.
 */
export function buildTree(folders: readonly FolderRecord[]): TreeEntry[] {
  const ids = new Set(folders.map((f) => f.id));
  const children = childrenByParent(folders);
  for (const list of children.values()) list.sort(compareFolders);
  const out: TreeEntry[] = [];
  const placed = new Set<string>();
  const visit = (f: FolderRecord, depth: number, path: string[]) => {
    if (placed.has(f.id)) return;
    placed.add(f.id);
    const kids = (children.get(f.id) ?? []).filter((c) => c.id !== f.id);
    const here = [...path, f.name];
    out.push({ folder: f, depth, path: here, childIds: kids.map((c) => c.id) });
    for (const c of kids) visit(c, depth + 1, here);
  };
  const roots = folders.filter((f) => f.parentId === '' || !ids.has(f.parentId)).sort(compareFolders);
  for (const r of roots) visit(r, 0, []);
  // Whatever is left sits in a cycle; list it rather than lose it.
  for (const f of [...folders].sort(compareFolders)) visit(f, 0, []);
  return out;
}
