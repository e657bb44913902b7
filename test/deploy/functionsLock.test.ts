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

test('firebase-admin loads the same Firestore and Storage SDKs here as on a Node 24 deploy from functions/package-lock.json', async () => {
  // npm on Node 20 skips firebase-admin's optional SDKs (they need Node 22), so without direct pins the
  // tests would run one major version and a deploy another.
  const { createRequire } = await import('node:module');
  const fromAdmin = createRequire(createRequire(import.meta.url).resolve('firebase-admin'));
  const fn = read('functions/package-lock.json');
  for (const sdk of ['@google-cloud/firestore', '@google-cloud/storage']) {
    // The SDK's own folder, as firebase-admin's require finds it (its package.json is not exported).
    const entry = fromAdmin.resolve(sdk);
    const dir = entry.slice(0, entry.lastIndexOf(`/node_modules/${sdk}/`) + `/node_modules/${sdk}`.length);
    const installed = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')).version;
    const deployed = (fn.packages[`node_modules/firebase-admin/node_modules/${sdk}`] ?? fn.packages[`node_modules/${sdk}`]).version;
    assert.equal(installed, deployed, `${sdk}: tests load ${installed}, a deploy would load ${deployed}`);
  }
});
