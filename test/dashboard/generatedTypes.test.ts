import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GENERATED, generateApiFiles } from '../../dashboard/scripts/apiTypes.ts';

/** The dashboard's client types are generated from the service's OpenAPI document; stale ones fail here. */
test('the dashboard API types and operation flags match the OpenAPI document the registry builds', async () => {
  const fresh = await generateApiFiles();
  for (const [k, rel] of Object.entries(GENERATED)) {
    const committed = readFileSync(new URL(`../../dashboard/${rel}`, import.meta.url), 'utf8');
    assert.ok(committed === fresh[k as keyof typeof GENERATED], `dashboard/${rel} is stale: run \`npm run -w dashboard generate\` and commit it`);
  }
});

test('the flags the dashboard confirms come from the registry: dangerous operations are flagged, safe ones are not', async () => {
  const { OPERATION_FLAGS } = await import('../../dashboard/src/api/flags.ts');
  const { registry } = await import('../../functions/src/operations/index.ts');
  for (const op of registry.values()) assert.equal(OPERATION_FLAGS[op.name as keyof typeof OPERATION_FLAGS]?.dangerous, Boolean(op.flags.dangerous), op.name);
  assert.equal(OPERATION_FLAGS.cancelPayment.dangerous, true);
  assert.equal(OPERATION_FLAGS.createPayment.dangerous, false);
});
