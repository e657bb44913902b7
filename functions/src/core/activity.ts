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
  /** The operation's name (the catalogue of actions is the mutating operations); rows written before it lack it. */
  action?: string;
  /** The operation's group: the log's "kind" filter. */
  kind?: string;
  /** What the dashboard fills its template with: names, counts, amounts in agorot with their currency; never secrets or ids. */
  params?: ActivityParams;
}

export type ActivityParams = Record<string, string | number | boolean | null>;

/** Actions written outside the operations' notes (supplier pages, consent returns, the outbox, the admin CLI). */
export const SYSTEM_ACTIONS = ['supplierSubmit', 'supplierInvoice', 'publicLinkRequest', 'messageFailed', 'itaConnectCallback', 'marketConnectCallback', 'mailboxConnectCallback', 'chatConnectCallback', 'paymentReminder', 'recurringOccurrence'] as const;

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
  note: { operation: string; kind?: string; targetIds: string[]; summary: string; params?: ActivityParams },
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
    // Rows of writers that give no kind nor params keep to their summary (the dashboard shows it as it is).
    ...(note.kind || note.params ? { action: note.operation } : {}),
    ...(note.kind ? { kind: note.kind } : {}),
    params: Object.fromEntries(Object.entries(note.params ?? {}).map(([k, v]) => [k, typeof v === 'string' ? cutCodePoints(v, 200) : v])),
  };
  await store.set(activityPath(caller.businessId, id), { ...row });
}
