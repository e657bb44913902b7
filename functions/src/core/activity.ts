import type { Caller } from './context.ts';
import type { DocStore } from '../ports/store.ts';
import type { IdSource } from './ids.ts';

export interface ActivityRow {
  id: string;
  /** Unix milliseconds. */
  at: number;
  actorUserId: string;
  actorEmail: string;
  keyName: string;
  operation: string;
  targetIds: string[];
  summary: string;
}

/** Cuts text to `max` code points, never inside a surrogate pair (a lone half is not valid Unicode and the store refuses it). */
export function cutCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

export const activityPath = (businessId: string, id = '') => `businesses/${businessId}/activity${id ? '/' + id : ''}`;

export async function appendActivity(
  store: DocStore,
  ids: IdSource,
  caller: Caller,
  at: number,
  note: { operation: string; targetIds: string[]; summary: string },
): Promise<void> {
  // Time-prefixed id keeps rows written in the same millisecond in a stable order.
  const id = `${String(at).padStart(15, '0')}-${ids()}`;
  const row: ActivityRow = {
    id,
    at,
    actorUserId: caller.userId,
    actorEmail: caller.email,
    keyName: caller.keyName,
    operation: note.operation,
    targetIds: note.targetIds,
    summary: cutCodePoints(note.summary, 300),
  };
  await store.set(activityPath(caller.businessId, id), { ...row });
}
