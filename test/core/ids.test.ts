import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newId, newSecret } from '../../functions/src/core/ids.ts';

test('secrets are 32 random bytes, URL-safe, and never repeat, also across the pool refills they share with ids', () => {
  const seen = new Set<string>();
  // 4,096-byte pool: 300 secrets and 300 ids take it through several refills.
  for (let i = 0; i < 300; i++) {
    const s = newSecret();
    assert.match(s, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(s, 'base64url').length, 32);
    seen.add(s);
    assert.match(newId(), /^[A-Za-z0-9]{20}$/);
  }
  assert.equal(seen.size, 300);
});

test('secret bytes look uniform: each of 256 values appears in 2,000 secrets', () => {
  const counts = new Array<number>(256).fill(0);
  for (let i = 0; i < 2000; i++) for (const b of Buffer.from(newSecret(), 'base64url')) counts[b]++;
  // 64,000 bytes: 250 expected per value; a stuck or zeroed pool would leave values out or pile up on 0.
  assert.ok(counts.every((c) => c > 150 && c < 350), `byte counts from ${Math.min(...counts)} to ${Math.max(...counts)}`);
});
