import { z } from 'zod';
import type { Reader } from '../../ports/store.ts';
import { text } from '../../core/schema.ts';
import { ApiError, invalid, notFound } from '../../core/errors.ts';

/**
 * The accountant's folder tree (spec §2 "Accountant folder"): plain folders and smart folders whose
 * `source` says what a ZIP puts in them. No files are stored in these folders.
 */
export const ACC_SOURCE_KINDS = ['invoices', 'statements', 'proofs', 'signed'] as const;
export const ACC_PAY_METHODS = ['card', 'paypal', 'bank_transfer', 'cash', 'check', 'other', 'unknown'] as const;
export const MAX_ACC_FOLDERS = 300;
const idList = () => z.array(z.string().min(1).max(128).regex(/^[^/]+$/, 'not a valid id')).max(100);

export const accSourceSchema = z
  .strictObject({
    kind: z.enum(ACC_SOURCE_KINDS).describe('invoices, statements, proofs (payment proofs) or signed (generated signup documents).'),
    folderIds: idList().default([]).describe('invoices: invoice folder ids (foldersList); empty = all.'),
    payMethods: z.array(z.enum(ACC_PAY_METHODS)).max(7).default([]).describe('invoices: pay methods, of the pay mark in force (the AI reading only where nothing overrides it); unknown = unpaid or none known; empty = all.'),
    accountIds: idList().default([]).describe('statements: statement account ids; empty = all.'),
  })
  .describe('What a ZIP puts in this folder; null for a plain folder.');
export type AccSource = z.output<typeof accSourceSchema>;

export interface AccFolderRecord {
  id: string;
  name: string;
  parentId: string;
  source: AccSource | null;
  /** Set on folders accFolderTemplate made, so running it again adds only what is missing. */
  templateKey: string | null;
  createdAt: string;
  updatedAt: string;
}

export const accFoldersPath = (businessId: string, id = '') => `businesses/${businessId}/accFolders${id ? '/' + id : ''}`;
export const accFolderName = () => text(100).trim().min(1);

export const accFolderOutput = z.object({
  id: z.string(),
  name: z.string(),
  parentId: z.string(),
  source: z.object({ kind: z.enum(ACC_SOURCE_KINDS), folderIds: z.array(z.string()), payMethods: z.array(z.enum(ACC_PAY_METHODS)), accountIds: z.array(z.string()) }).nullable(),
  depth: z.int(),
  path: z.array(z.string()),
  childIds: z.array(z.string()),
});

export async function readAccFolders(reader: Reader, businessId: string): Promise<AccFolderRecord[]> {
  return (await reader.query({ collection: accFoldersPath(businessId) })).map((d) => d.data as unknown as AccFolderRecord);
}

export function requireFolder(folders: readonly AccFolderRecord[], id: string, field = 'id'): AccFolderRecord {
  const f = folders.find((x) => x.id === id);
  if (!f) throw notFound(`${field}: accountant folder ${id}`, 'folder');
  return f;
}

/** Pre-order: each folder followed by the folders below it, siblings by name (Hebrew collation). */
export function accTree(folders: readonly AccFolderRecord[]) {
  const byParent = new Map<string, AccFolderRecord[]>();
  for (const f of folders) byParent.set(f.parentId, [...(byParent.get(f.parentId) ?? []), f]);
  for (const list of byParent.values()) list.sort((a, b) => a.name.localeCompare(b.name, 'he'));
  const out: { folder: AccFolderRecord; depth: number; path: string[]; childIds: string[] }[] = [];
  const walk = (parentId: string, depth: number, path: string[]) => {
    for (const f of byParent.get(parentId) ?? []) {
      const p = [...path, f.name];
      out.push({ folder: f, depth, path: p, childIds: (byParent.get(f.id) ?? []).map((c) => c.id) });
      walk(f.id, depth + 1, p);
    }
  };
  walk('', 0, []);
  return out;
}

export const accView = (e: ReturnType<typeof accTree>[number]) => ({
  id: e.folder.id,
  name: e.folder.name,
  parentId: e.folder.parentId,
  source: e.folder.source,
  depth: e.depth,
  path: e.path,
  childIds: e.childIds,
});

/** The folder and every folder below it. */
export function accSubtree(folders: readonly AccFolderRecord[], rootId: string): string[] {
  const out = [rootId];
  for (let i = 0; i < out.length; i++) for (const f of folders) if (f.parentId === out[i]) out.push(f.id);
  return out;
}

export function assertUniqueName(folders: readonly AccFolderRecord[], parentId: string, name: string, exceptId = '') {
  const clash = folders.find((f) => f.parentId === parentId && f.id !== exceptId && f.name.localeCompare(name, 'he', { sensitivity: 'accent' }) === 0);
  if (clash) throw new ApiError('already-exists', `name: a folder named "${clash.name}" already exists there (${clash.id})`, { reason: 'folderNameTaken', params: { name: clash.name } });
}

/** Refuses a parent that does not exist, or that is the folder itself or below it (no cycles). */
export function checkParent(folders: readonly AccFolderRecord[], parentId: string, movingId = '') {
  if (!parentId) return;
  requireFolder(folders, parentId, 'parentId');
  if (movingId && accSubtree(folders, movingId).includes(parentId)) throw invalid('parentId', 'is the folder itself or below it', { reason: 'folderBelowItself' });
}
