import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { operations } from '../../functions/src/operations/index.ts';

/** Every input field an MCP client or an OpenAPI reader sees, with its path. */
function fields(schema: any, path = ''): { path: string; description?: string }[] {
  const out: { path: string; description?: string }[] = [];
  for (const [k, v] of Object.entries<any>(schema?.properties ?? {})) {
    const p = path ? `${path}.${k}` : k;
    out.push({ path: p, description: v.description });
    out.push(...nested(v, p));
  }
  return out;
}

/** Fields inside a value: an object's, an array's items, a record's values, every branch of a union. */
function nested(v: any, path: string): { path: string; description?: string }[] {
  if (!v || typeof v !== 'object') return [];
  const out: { path: string; description?: string }[] = [];
  if (v.properties) out.push(...fields(v, path));
  if (v.items) out.push(...nested(v.items, `${path}[]`));
  if (typeof v.additionalProperties === 'object') out.push(...nested(v.additionalProperties, `${path}{}`));
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const x of v[k] ?? []) out.push(...nested(x, path));
  return out;
}

test('every input field of every operation has a description (it feeds the MCP tool schemas and OpenAPI)', () => {
  const missing: string[] = [];
  for (const op of operations) {
    for (const f of fields(z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }))) if (!f.description?.trim() && !missing.includes(`${op.name}.${f.path}`)) missing.push(`${op.name}.${f.path}`);
  }
  assert.deepEqual(missing, []);
});

test('the walk reaches fields inside records, arrays and unions (so the check above can fail)', () => {
  const schema = z.strictObject({
    a: z.record(z.string(), z.strictObject({ b: z.string() })).describe('a'),
    c: z.array(z.union([z.strictObject({ d: z.number().describe('d') }), z.strictObject({ e: z.string() })])).describe('c'),
  });
  const undescribed = fields(z.toJSONSchema(schema, { io: 'input' })).filter((f) => !f.description).map((f) => f.path);
  assert.deepEqual(undescribed, ['a{}.b', 'c[].e']);
});

test('every summary is one short line (under 80 characters); longer text goes in the description', () => {
  const long = operations.filter((op) => op.summary.length >= 80 || op.summary.includes('\n')).map((op) => `${op.name} (${op.summary.length})`);
  assert.deepEqual(long, []);
});

test('every operation has a description beside its summary (the OpenAPI shows it; MCP tools carry the summary only)', () => {
  const bare = operations.filter((op) => !op.description?.trim() || op.description.trim() === op.summary.trim()).map((op) => op.name);
  assert.deepEqual(bare, []);
});

test('every summary is one sentence (it is the MCP tool description; detail goes in the description)', () => {
  const multi = operations.filter((op) => /[.!?]\s+\S/.test(op.summary.replace(/\b(e\.g|i\.e)\./g, ''))).map((op) => `${op.name}: ${op.summary}`);
  assert.deepEqual(multi, []);
});
