import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createHarness, type Harness } from '../harness.ts';
import { post } from '../http.ts';
import { registry } from '../../functions/src/operations/index.ts';

/**
 * Registry-wide: for every operation, bodies generated from its own schema that must be refused
 * with 400 invalid-argument naming the field, writing nothing. New operations are covered automatically.
 */
type S = { type?: string | string[]; properties?: Record<string, S>; required?: string[]; enum?: unknown[]; maxLength?: number; items?: S; anyOf?: S[]; const?: unknown };

const typeOf = (s: S): string | undefined => {
  if (s.anyOf) return typeOf(s.anyOf.find((x) => x.type !== 'null') ?? {});
  return Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
};

const wrongValue = (s: S): unknown => {
  switch (typeOf(s)) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not a number';
    case 'boolean':
      return 'yes';
    case 'array':
      return 'not an array';
    case 'object':
      return 7;
    default:
      return undefined;
  }
};

interface Case {
  label: string;
  body: string;
  field: string;
}

/** Walks the schema: required fields, wrong types, unknown enum values, oversized strings, nested objects. */
function casesFor(schema: S, prefix = '', wrap: (v: unknown) => unknown = (v) => v): Case[] {
  const out: Case[] = [];
  const props = schema.properties ?? {};
  for (const field of schema.required ?? []) {
    const body = wrap({});
    out.push({ label: `missing ${prefix}${field}`, body: JSON.stringify(body), field: prefix + field });
  }
  for (const [field, s] of Object.entries(props)) {
    const path = prefix + field;
    const wrong = wrongValue(s);
    if (wrong !== undefined) out.push({ label: `wrong type ${path}`, body: JSON.stringify(wrap({ [field]: wrong })), field: path });
    // A union's constant branch ("" | email: "" clears) carries no bounds; the open branch does.
    const inner = s.anyOf?.find((x) => x.type !== 'null' && x.const === undefined) ?? s;
    if (inner.enum) out.push({ label: `unknown enum ${path}`, body: JSON.stringify(wrap({ [field]: 'zz-not-a-member' })), field: path });
    if (typeOf(s) === 'string' && !inner.enum) {
      assert.ok(inner.maxLength !== undefined, `${path} is a string without a maximum length`);
      out.push({ label: `oversized ${path}`, body: JSON.stringify(wrap({ [field]: 'x'.repeat(inner.maxLength! + 1) })), field: path });
    }
    if (typeOf(s) === 'object' && inner.properties) {
      out.push(...casesFor(inner, `${path}.`, (v) => wrap({ [field]: v })));
    }
    if (typeOf(s) === 'array' && inner.items && typeOf(inner.items) === 'object' && inner.items.properties) {
      out.push(...casesFor(inner.items, `${path}.0.`, (v) => wrap({ [field]: [v] })));
    }
  }
  if (!prefix) out.push({ label: '__proto__ key', body: '{"__proto__":{"polluted":true}}', field: '__proto__' });
  return out;
}

let h: Harness;
let origin: string;
before(async () => {
  // Every operation's cases go through one API key; the per-key rate limit is not what this test is about.
  h = await createHarness({ env: { RATE_LIMIT_PER_MIN: '1000000', RATE_LIMIT_USER_PER_MIN: '0', RATE_LIMIT_BUSINESS_PER_MIN: '0' } });
  origin = await h.listen();
  await post(origin, '/v1/whoami', {}, h.owner.apiKey); // records lastUsedAt now, so later calls write nothing for auth
});
after(() => h.close());

for (const op of registry.values()) {
  test(`${op.name}: generated bad input is refused naming the field, with nothing written`, async () => {
    const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as S;
    const cases = casesFor(schema);
    assert.ok(cases.length >= 1);
    for (const c of cases) {
      const res = await post(origin, `/v1/${op.name}`, c.body, h.owner.apiKey);
      assert.ok(res.status < 500, `${c.label}: ${res.status}`);
      assert.equal(res.status, 400, `${c.label}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'invalid-argument', c.label);
      assert.ok(res.body.error.message.includes(`${c.field}:`), `${c.label}: message "${res.body.error.message}" does not name ${c.field}`);
      assert.equal(res.headers.get('x-doc-writes'), '0', `${c.label}: wrote documents`);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
}
