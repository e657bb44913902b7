import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registry } from '../../../functions/src/operations/index.ts';
import { buildOpenApi } from '../../../functions/src/surfaces/openapi/openapi.ts';
import { loadConfig } from '../../../functions/src/config.ts';

/** Issue 18 F15–F16: the response fields a caller reads are described, and 503 is documented where it can happen. */
const doc = buildOpenApi(registry, loadConfig({})) as any;

test('at least 80% of the response properties have a description (coverage printed)', () => {
  let total = 0;
  let described = 0;
  const walk = (s: any) => {
    if (!s || typeof s !== 'object') return;
    if (Array.isArray(s)) return s.forEach(walk);
    if (s.properties) {
      for (const v of Object.values<any>(s.properties)) {
        total++;
        if (typeof v.description === 'string' && v.description.trim()) described++;
      }
    }
    for (const v of Object.values(s)) if (typeof v === 'object') walk(v);
  };
  for (const op of registry.values()) walk(doc.paths[`/${op.name}`].post.responses['200'].content['application/json'].schema.properties.result);
  const pct = (described / total) * 100;
  console.log(`# response properties described: ${described} of ${total} (${pct.toFixed(1)}%)`);
  assert.ok(pct >= 80, `${pct.toFixed(1)}%`);
  // An operation's own words win over the shared glossary.
  const upload = doc.paths['/createUploadUrl'].post.responses['200'].content['application/json'].schema.properties.result;
  assert.equal(upload.properties.fileId.description, 'Pass it as fileId once the PUT succeeded.');
  const payment = doc.paths['/paymentGet'].post.responses['200'].content['application/json'].schema.properties.result;
  assert.match(payment.properties.paidAt.description, /marked paid/);
});

test('503 unavailable is documented on every operation, naming the third party where the operation calls one', () => {
  for (const op of registry.values()) {
    const r = doc.paths[`/${op.name}`].post.responses['503'];
    assert.ok(r, op.name);
    assert.equal(r.content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
    if (op.flags.openWorld) assert.match(r.description, /third party/, op.name);
  }
});
