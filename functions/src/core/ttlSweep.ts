import type { DocStore } from '../ports/store.ts';

/**
 * The local stand-in for Firestore's TTL policies: deletes documents whose `expireAtMs` has passed,
 * in the collections that only grow. In production the TTL policies in firestore.indexes.json do this.
 */
export const TTL_COLLECTIONS: { collection: string; group: boolean }[] = [
  { collection: 'oauthStates', group: false },
  { collection: 'rateLimits', group: false },
  // The toolsets an API key enabled over MCP (surfaces/mcp/toolsets.ts).
  { collection: 'mcpToolsets', group: false },
  { collection: '_tasks', group: false },
  { collection: 'quotas', group: true },
  { collection: 'outbox', group: true },
  { collection: 'idempotency', group: true },
  { collection: 'linkFilings', group: true },
  // Links of expired files, kept 90 days to answer 410 (core/files.ts).
  { collection: 'fileLinks', group: false },
];

export async function sweepExpired(store: DocStore, now: number): Promise<number> {
  let n = 0;
  for (const c of TTL_COLLECTIONS) {
    for (;;) {
      const expired = await store.query({ collection: c.collection, group: c.group, where: [['expireAtMs', '<=', now]], orderBy: [['expireAtMs', 'asc']], limit: 400 });
      if (!expired.length) break;
      const batch = store.batch();
      for (const d of expired) batch.delete(d.path);
      await batch.commit();
      n += expired.length;
      if (expired.length < 400) break;
    }
  }
  return n;
}
