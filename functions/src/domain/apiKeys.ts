import { z } from 'zod';
import type { Caller } from '../core/context.ts';
import type { Reader } from '../ports/store.ts';
import { API_KEY_PREFIX, apiKeyPath, type ApiKeyRecord } from '../core/auth.ts';
import { notFound } from '../core/errors.ts';

/**
 * API keys as the dashboard's settings (API tab) manages them: a user sees and revokes their own keys,
 * an admin all of the business's. A key is named by `keyId`, the SHA-256 of the key: it identifies the
 * record and cannot be used to call the API.
 */
export const MAX_KEYS_PER_USER = 20;

export const apiKeyViewSchema = z.object({
  keyId: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdBy: z.object({ userId: z.string(), email: z.string() }),
});

export function apiKeyView(r: ApiKeyRecord, emails: ReadonlyMap<string, string>) {
  return {
    keyId: r.keyHash,
    name: r.name,
    prefix: `${API_KEY_PREFIX}${r.prefix ?? ''}…`,
    createdAt: r.createdAt,
    lastUsedAt: r.lastUsedAt ?? null,
    revokedAt: r.revokedAt ?? null,
    createdBy: { userId: r.userId, email: emails.get(r.userId) ?? '' },
  };
}

/** The keys the caller may see: their own, or the whole business's for an admin. */
export async function visibleKeys(reader: Reader, caller: Caller): Promise<ApiKeyRecord[]> {
  const where: [string, '==', string][] = [['businessId', '==', caller.businessId]];
  if (caller.role !== 'admin') where.push(['userId', '==', caller.userId]);
  const docs = await reader.query({ collection: 'apiKeys', where });
  return docs.map((d) => d.data as unknown as ApiKeyRecord).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** One key the caller may manage; anything else (another user's for a user, another business's) is not-found. */
export async function manageableKey(reader: Reader, caller: Caller, keyId: string): Promise<ApiKeyRecord> {
  const doc = /^[0-9a-f]{64}$/.test(keyId) ? await reader.get(apiKeyPath(keyId)) : null;
  const r = doc?.data as unknown as ApiKeyRecord | undefined;
  if (!r || r.businessId !== caller.businessId || (caller.role !== 'admin' && r.userId !== caller.userId)) throw notFound(`keyId: API key ${keyId.slice(0, 12)}`, 'key');
  return r;
}
