import { hash, randomFillSync } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Random bytes are drawn from a pool: one call into the CSPRNG serves many ids.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
/** Where `n` unused bytes of the pool start (refilled when fewer are left); each byte is handed out once. */
function reserve(n: number): number {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += n;
  return at;
}

/** Opaque random record id: 20 characters of [A-Za-z0-9] (~119 bits), like Firestore's auto ids. */
export function newId(length = 20, alphabet = ALPHABET): string {
  // Rejection sampling keeps every character uniform.
  const limit = 256 - (256 % alphabet.length);
  const codes = new Array<number>(length);
  for (let i = 0; i < length; ) {
    const b = pool[reserve(1)];
    if (b < limit) codes[i++] = alphabet.charCodeAt(b % alphabet.length);
  }
  // One string from the codes: building it a character at a time made a string per character (every request id).
  return String.fromCharCode(...codes);
}

/** A capability secret: 32 random bytes (256 bits), URL-safe. */
export function newSecret(): string {
  // From the pool too: randomBytes costs about 5 µs a call here, the pool 0.4 (an imported file's link makes one; issue 23).
  const at = reserve(32);
  const secret = pool.toString('base64url', at, at + 32);
  // Not left behind in the pool once handed out.
  pool.fill(0, at, at + 32);
  return secret;
}

/** Hex SHA-256 of a string (the one-shot `hash` skips the Hash object: it runs on every API call). */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

export type IdSource = () => string;
export const randomIds: IdSource = () => newId();
