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

/** Issue 18 F15: every operation and every GET parameter says what it is; the coverage is printed. */
test('every operation and every GET parameter has a description (coverage printed)', () => {
  const ops: string[] = [];
  const params: string[] = [];
  const undescribedOps: string[] = [];
  const undescribedParams: string[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, o] of Object.entries<any>(item)) {
      ops.push(`${method.toUpperCase()} ${path}`);
      if (!(typeof o.description === 'string' && o.description.trim().length >= 20)) undescribedOps.push(`${method.toUpperCase()} ${path}`);
      if (method !== 'get') continue;
      for (const p of o.parameters ?? []) {
        params.push(`${path} ${p.name}`);
        if (!(typeof p.description === 'string' && p.description.trim())) undescribedParams.push(`${path} ${p.name}`);
      }
    }
  }
  const pct = (n: number, of: number) => `${of - n} of ${of} (${(((of - n) / of) * 100).toFixed(1)}%)`;
  console.log(`# operations described: ${pct(undescribedOps.length, ops.length)}; GET parameters described: ${pct(undescribedParams.length, params.length)}`);
  assert.deepEqual(undescribedOps, []);
  assert.deepEqual(undescribedParams, []);
  assert.ok(params.length > 30, `${params.length} GET parameters`);
  // The parameter carries the description; its schema does not repeat it.
  const limit = doc.paths['/paymentsList'].get.parameters.find((p: any) => p.name === 'limit');
  assert.match(limit.description, /Page size, 1 to 200/);
  assert.equal(limit.schema.description, undefined);
});
