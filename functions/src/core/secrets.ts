import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ApiError } from './errors.ts';

/**
 * Provider credentials at rest: AES-256-GCM under a key from configuration (CREDENTIALS_KEY).
 * Sealed values are never returned by any operation, log or error.
 */
const keyOf = (secret: string) => {
  if (!secret) throw new ApiError('unavailable', 'credential storage is not configured (CREDENTIALS_KEY)', { reason: 'serverNotConfigured' });
  return createHash('sha256').update(secret).digest();
};

export function seal(plain: Record<string, string>, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join('.');
}

export function unseal(sealed: string, secret: string): Record<string, string> {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1') throw new Error('unknown sealed format');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return JSON.parse(Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8'));
}
