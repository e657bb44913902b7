/**
 * Mailbox imports: which mails an import looks at. (The fanned-out import itself is not built yet.)
 */

/** Mails one import (or count) looks at, at most. */
export const MAX_IMPORT_MAILS = 5000;

/** Gmail search for mails received after `sinceMs` (after: takes unix seconds). */
export const importQuery = (sinceMs: number) => `after:${Math.floor(sinceMs / 1000)}`;
