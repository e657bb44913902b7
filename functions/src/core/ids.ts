import { hash, randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Random bytes are drawn from a pool: one call into the CSPRNG serves many ids.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++];
}

/** Opaque random record id: 20 characters of [A-Za-z0-9] (~119 bits), like Firestore's auto ids. */
export function newId(length = 20, alphabet = ALPHABET): string {
  // Rejection sampling keeps every character uniform.
  const limit = 256 - (256 % alphabet.length);
  const codes = new Array<number>(length);
  for (let i = 0; i < length; ) {
    const b = randomByte();
    if (b < limit) codes[i++] = alphabet.charCodeAt(b % alphabet.length);
  }
  // One string from the codes: building it a character at a time made a string per character (every request id).
  return String.fromCharCode(...codes);
}

/** A capability secret: 32 random bytes (256 bits), URL-safe. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Hex SHA-256 of a string (the one-shot `hash` skips the Hash object: it runs on every API call). */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

export type IdSource = () => string;
export const randomIds: IdSource = () => newId();
