import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, unixMs } from '../../core/schema.ts';
import { activityPath, type ActivityRow } from '../../core/activity.ts';
import { invalid } from '../../core/errors.ts';
import type { Where } from '../../ports/store.ts';

export const ACTIVITY_PAGE = 60;

/** The groups with mutating operations, and the outbox's failed messages: a row's `kind` (a test keeps the list in step with operations/). */
export const ACTIVITY_KINDS = ['account', 'accountant', 'employees', 'folders', 'invoices', 'mailboxes', 'messages', 'payments', 'payruns', 'recurring', 'reports', 'signupDocs', 'software', 'statements', 'suppliers', 'team'] as const;

/**
 * The cursor resumes right after a row by (at, id): rows sharing a millisecond are all shown, which `before`
 * (at < the last row's at) cannot promise. Opaque to clients: base64url of the JSON `[at, id]` of the last row.
 */
const encodeCursor = (at: number, id: string) => Buffer.from(JSON.stringify([at, id])).toString('base64url');
function decodeCursor(cursor: string): [number, string] {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    v = null;
  }
  if (!Array.isArray(v) || v.length !== 2 || !Number.isSafeInteger(v[0]) || typeof v[1] !== 'string' || !/^[0-9A-Za-z_-]{1,100}$/.test(v[1])) {
    throw invalid('cursor', 'not a cursor from listActivity (pass nextCursor as it came)', { reason: 'badPageToken' });
  }
  return v as [number, string];
}

export default defineOperation({
  name: 'listActivity',
  group: 'activity',
  summary: 'The activity log, newest first, 60 rows a page',
  description:
    'The activity log, newest first, 60 rows a page; pass `nextCursor` as `cursor` for the next page (every row once, even rows of the same millisecond). ' +
    '`before` (the `at` of the last row seen) also works, but skips the other rows of that millisecond.',
  flags: { readOnly: true },
  input: input({
    before: unixMs().optional().describe('Unix ms: only rows older than this (the `at` of the last row seen); omit for the newest page.'),
    cursor: z.string().max(200).optional().describe("The previous page's nextCursor: continues right after its last row."),
    kind: z.enum(ACTIVITY_KINDS).optional().describe('Only rows of this group.'),
    actor: z.string().min(1).max(128).optional().describe("Only this member's rows (userId)."),
  }),
  output: z.object({
    items: z.array(z.object({ id: z.string(), at: z.number(), actorUserId: z.string(), actorEmail: z.string(), keyName: z.string(), operation: z.string(), targetIds: z.array(z.string()), summary: z.string(),
      action: z.string().nullable().describe('The operation (or system action) named, for a template; null on older rows.'),
      kind: z.string().nullable(),
      params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).nullable().describe('Names, counts, amountAgorot with currency; never ids.'),
    })),
    nextBefore: z.number().nullable(),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page.'),
  }),
  async run({ before, cursor, kind, actor }, ctx) {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const where: Where[] = before === undefined ? [] : [['at', '<', before]];
    if (kind) where.push(['kind', '==', kind]);
    if (actor) where.push(['actorUserId', '==', actor]);
    // One row past the page tells whether there is a next one.
    const docs = await ctx.store.query({
      collection: activityPath(ctx.caller.businessId),
      where,
      orderBy: [['at', 'desc'], ['id', 'desc']],
      ...(after ? { startAfter: after } : {}),
      limit: ACTIVITY_PAGE + 1,
    });
    const items = docs.slice(0, ACTIVITY_PAGE).map((d) => {
      const r = d.data as unknown as ActivityRow;
      return { ...r, action: r.action ?? null, kind: r.kind ?? null, params: r.params ?? null };
    });
    const last = docs.length > ACTIVITY_PAGE ? items[items.length - 1] : null;
    return { items, nextBefore: last ? last.at : null, nextCursor: last ? encodeCursor(last.at, last.id) : null };
  },
});
