import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createHarness, type Harness } from '../../harness.ts';
import { get, post } from '../../http.ts';

/**
 * Issue 34 C16: the document says no less than the server checks. Every month input carries the
 * YYYY-MM pattern, every email input `format: email`, and every field described as possibly null
 * admits null. Found by name and by description over the whole document, so a new field is held too.
 */
let h: Harness;
let origin: string;
let doc: any;
before(async () => {
  h = await createHarness();
  origin = await h.listen();
  doc = (await get(origin, '/v1/openapi.json')).body;
});
after(() => h.close());

type Field = { where: string; name: string; schema: any };

/** Every property at any depth (array items and record values included) of a schema. */
function fieldsOf(schema: any, where: string, out: Field[] = [], name = ''): Field[] {
  if (!schema || typeof schema !== 'object') return out;
  if (name) out.push({ where, name, schema });
  for (const [k, v] of Object.entries<any>(schema.properties ?? {})) fieldsOf(v, `${where}.${k}`, out, k);
  if (schema.items) fieldsOf(schema.items, `${where}[]`, out, '');
  if (typeof schema.additionalProperties === 'object') fieldsOf(schema.additionalProperties, `${where}{}`, out, '');
  for (const b of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) fieldsOf(b, where, out, '');
  return out;
}

const bodyOf = (op: any, status?: string) => (status ? op.responses[status] : op.requestBody)?.content?.['application/json']?.schema;
const inputs = () => Object.entries<any>(doc.paths).flatMap(([p, item]) => (item.post && bodyOf(item.post) ? fieldsOf(bodyOf(item.post), p) : []));
const outputs = () => Object.entries<any>(doc.paths).flatMap(([p, item]) => (item.post ? fieldsOf(bodyOf(item.post, '200'), p) : []));
/** The string branches of a field (itself, its anyOf branches, an array's items). */
const strings = (s: any): any[] => (s.type === 'string' ? [s] : s.type === 'array' ? strings(s.items ?? {}) : (s.anyOf ?? s.oneOf ?? []).flatMap(strings));
const admitsNull = (s: any): boolean => s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || (s.anyOf ?? s.oneOf ?? []).some(admitsNull);

test('every month input carries the YYYY-MM pattern', () => {
  const months = inputs().filter((f) => strings(f.schema).length && (/month/i.test(f.name) || /YYYY-MM(?!-)/.test(f.schema.description ?? '')));
  assert.ok(months.length >= 13, `${months.length} month inputs found`);
  const loose = months.filter((f) =>
    strings(f.schema).some((s) => {
      if (s.const !== undefined) return false;
      const re = s.pattern ? new RegExp(s.pattern) : null;
      return !re || !re.test('2026-01') || re.test('2026-13') || re.test('2026-1') || re.test('26-01');
    }),
  );
  assert.deepEqual(loose.map((f) => f.where), []);
});

test('every email input says format: email', () => {
  const emails = inputs().filter((f) => strings(f.schema).length && (/email$/i.test(f.name) || /^email address/i.test(f.schema.description ?? '') || /^recipients$/.test(f.name)));
  assert.ok(emails.length >= 14, `${emails.length} email inputs found`);
  const loose = emails.filter((f) => strings(f.schema).some((s) => s.format !== 'email' && s.const !== ''));
  assert.deepEqual(loose.map((f) => f.where), []);
});

test('every field described as possibly null admits null', () => {
  const SAYS_NULL = /\bnull (when|if|for|until|while|before|on|or)\b|\bor null\b/i;
  const said = [...inputs(), ...outputs()].filter((f) => SAYS_NULL.test(f.schema.description ?? ''));
  assert.ok(said.length > 50, `${said.length} fields described as nullable`);
  assert.deepEqual(said.filter((f) => !admitsNull(f.schema)).map((f) => `${f.where}: ${f.schema.description}`), []);
});

test('the document stays valid OpenAPI 3.1, and the server refuses what the schemas refuse', async () => {
  const result = await new Validator().validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
  const month = await post(origin, '/v1/statementsZip', { month: '2025-13' }, h.owner.apiKey);
  assert.equal(month.status, 400);
  assert.match(month.body.error.message, /^month: /);
  const mail = await post(origin, '/v1/createSupplier', { name: 'Avi', email: 'not-an-email' }, h.owner.apiKey);
  assert.equal(mail.status, 400);
  assert.match(mail.body.error.message, /^email: /);
});
