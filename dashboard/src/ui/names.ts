import { he, type Messages } from '../i18n/he.ts';

/**
 * Names the server stores in Hebrew (built-in folders, the fixed categories) or as Gmail's ids (system labels),
 * shown in the chosen language. A built-in folder the owner renamed keeps the name typed.
 */
const CARD = /^card-(\d{4})$/;

/** The default name of a built-in folder id, as the server creates it, in the given catalogue; null if not built-in. */
function builtInName(m: Messages, id: string): string | null {
  if (id === 'general') return m.names.general;
  if (id === 'petty-cash') return m.names.pettyCash;
  const card = CARD.exec(id);
  return card ? m.names.card.replace('{ending}', card[1]) : null;
}

export function folderName(m: Messages, f: { id: string; name: string }): string {
  const mine = builtInName(m, f.id);
  // The server stores the Hebrew defaults: any other name is the owner's own.
  return mine !== null && f.name === builtInName(he, f.id) ? mine : f.name;
}

/** The folder's path from the top, each name in the chosen language; falls back on the stored path. */
export function folderPath(m: Messages, f: { id: string; name: string; parentId: string; path: string[] }, all: readonly { id: string; name: string; parentId: string }[]): string {
  const byId = new Map(all.map((x) => [x.id, x]));
  const names: string[] = [];
  for (let x: { id: string; name: string; parentId: string } | undefined = f; x && names.length < 50; x = x.parentId ? byId.get(x.parentId) : undefined) names.unshift(folderName(m, x));
  return names.join(' / ') || f.path.join(' / ') || f.name;
}

export const categoryName = (m: Messages, c: { id: string; label: string }) => (m.names.categories as Record<string, string>)[c.id] ?? c.label;

/** A category as an activity row keeps it (its id, or a fixed category's Hebrew label), in the chosen language. */
export function storedCategoryName(m: Messages, stored: string): string {
  const hebrew = he.names.categories as Record<string, string>;
  const id = Object.hasOwn(hebrew, stored) ? stored : Object.keys(hebrew).find((k) => hebrew[k] === stored);
  return id ? categoryName(m, { id, label: stored }) : stored;
}

/** A folder as an activity row keeps it (its name only): a built-in folder's Hebrew default in the chosen language. */
export function storedFolderName(m: Messages, stored: string): string {
  if (stored === he.names.general) return m.names.general;
  if (stored === he.names.pettyCash) return m.names.pettyCash;
  const card = new RegExp(`^${he.names.card.replace('{ending}', '(\\d{4})')}$`).exec(stored);
  return card ? m.names.card.replace('{ending}', card[1]) : stored;
}

export const gmailLabelName = (m: Messages, l: { id: string; name: string }) => (m.names.gmailLabels as Record<string, string>)[l.id] ?? l.name;
