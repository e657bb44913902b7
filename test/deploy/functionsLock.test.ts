import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** Cloud Build installs functions/ alone, from functions/package-lock.json: it must pin what the root lock pins. */
const read = (p: string) => JSON.parse(readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8'));

test('functions/package-lock.json pins every dependency of functions/ at the version of the root lockfile', () => {
  const pkg = read('functions/package.json');
  const root = read('package-lock.json');
  const fn = read('functions/package-lock.json');
  assert.deepEqual(fn.packages[''].dependencies, pkg.dependencies, 'the lock was made from the current functions/package.json (run scripts/functions-lock.sh)');
  for (const dep of Object.keys(pkg.dependencies)) {
    const want = (root.packages[`functions/node_modules/${dep}`] ?? root.packages[`node_modules/${dep}`])?.version;
    const got = fn.packages[`node_modules/${dep}`]?.version;
    assert.equal(got, want, `${dep}: functions lock ${got}, root lock ${want} (run scripts/functions-lock.sh)`);
  }
});
