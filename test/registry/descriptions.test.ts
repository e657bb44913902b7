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
    const inner = v.type === 'array' ? v.items : (v.anyOf?.find((x: any) => x.type === 'object') ?? v);
    if (inner?.type === 'object') out.push(...fields(inner, v.type === 'array' ? `${p}[]` : p));
  }
  return out;
}

test('every input field of every operation has a description (it feeds the MCP tool schemas and OpenAPI)', () => {
  const missing: string[] = [];
  for (const op of operations) {
    for (const f of fields(z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }))) if (!f.description?.trim()) missing.push(`${op.name}.${f.path}`);
  }
  assert.deepEqual(missing, []);
});

test('every summary is one short line (under 80 characters); longer text goes in the description', () => {
  const long = operations.filter((op) => op.summary.length >= 80 || op.summary.includes('\n')).map((op) => `${op.name} (${op.summary.length})`);
  assert.deepEqual(long, []);
});
