import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shareOutputSchemas } from '../../../functions/src/surfaces/mcp/toolSchemas.ts';
import { operations } from '../../../functions/src/operations/index.ts';
import { toolOf, toolsOf } from '../../../functions/src/surfaces/mcp/toolsets.ts';
import { expandOutput } from './outputNotation.ts';

/** Output sharing in one tool list: a record met before is a pointer; a record that extends one names it and adds the rest. */
const long = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`field${i}OfTheRecord`, { type: 'integer' }]));
const record = { type: 'object', properties: long(8) };

test('an object with every field of one met before, and more, names it and spells out only the rest', () => {
  const out = shareOutputSchemas([
    { name: 'recordGet', readOnly: true, outputSchema: record },
    { name: 'recordCreate', readOnly: false, outputSchema: { type: 'object', properties: { ...record.properties, sent: { type: 'boolean' } } } },
    { name: 'recordCopy', readOnly: false, outputSchema: { type: 'object', properties: { ...record.properties } } },
  ]);
  assert.deepEqual(out.get('recordGet'), record);
  assert.deepEqual(out.get('recordCreate'), { type: 'object', description: 'Same fields as recordGet, plus:', properties: { sent: { type: 'boolean' } } });
  assert.deepEqual(out.get('recordCopy'), { type: 'object', description: 'Same fields as recordGet' });
});

test('an object with some of the fields of one met before names it and the fields it lacks', () => {
  const wide = { type: 'object', properties: { ...record.properties, createdAt: {}, apps: { type: 'object', properties: { a: { type: 'boolean' } } } } };
  const { createdAt: _c, apps: _a, ...narrow } = wide.properties;
  const out = shareOutputSchemas([
    { name: 'recordGet', readOnly: true, outputSchema: wide },
    { name: 'recordUpdate', readOnly: false, outputSchema: { type: 'object', properties: narrow } },
    { name: 'tiny', readOnly: false, outputSchema: { type: 'object', properties: { field0OfTheRecord: { type: 'integer' } } } },
  ]);
  assert.deepEqual(out.get('recordUpdate'), { type: 'object', description: 'Same fields as recordGet, less: createdAt, apps' });
  // Too small to be worth a pointer, and a field whose schema differs is never narrowed to.
  assert.deepEqual(out.get('tiny'), { type: 'object', properties: { field0OfTheRecord: { type: 'integer' } } });
});

test('no extension when a shared field differs in its schema, or when naming the base would save little', () => {
  const changed = { ...record.properties, field0OfTheRecord: { type: 'string' }, extra: { type: 'boolean' } };
  const small = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'array', items: { type: 'integer' } }, d: { type: 'boolean' } } };
  const out = shareOutputSchemas([
    { name: 'recordGet', readOnly: true, outputSchema: record },
    { name: 'smallGet', readOnly: true, outputSchema: small },
    { name: 'other', readOnly: false, outputSchema: { type: 'object', properties: changed } },
    { name: 'smallPlus', readOnly: false, outputSchema: { type: 'object', properties: { ...small.properties, e: { type: 'integer' } } } },
  ]);
  assert.deepEqual(out.get('other'), { type: 'object', properties: changed });
  assert.equal((out.get('smallPlus') as any).description, undefined);
});

test('in the full list, following the pointers gives back every output field of every tool', () => {
  const { list } = toolsOf(operations.map(toolOf));
  // Read back from the notation the list is written in.
  const byName = new Map((list.tools as any[]).map((t) => [t.name, { ...t, outputSchema: expandOutput(t.outputSchema) }]));
  const full = new Map((operations.map(toolOf) as any[]).map((e) => [e.op.name, e.tool.outputSchema]));
  /** The object a "Same fields as X.a.b[]" pointer names (X a tool's result). */
  const at = (where: string): any => {
    const m = /^(\w+)(.*)$/.exec(where)!;
    let s: any = byName.get(m[1]).outputSchema;
    for (const step of m[2].match(/\.\w+|\[\]/g) ?? []) {
      s = step === '[]' ? s.items : s.properties[step.slice(1)];
      if (s?.anyOf) s = s.anyOf.find((b: any) => b.type !== 'null');
    }
    return s;
  };
  const fields = (s: any): string[] => {
    const named = /^Same fields as (.+?)(, plus:|, less: (.+))?$/.exec(s?.description ?? '');
    const less = new Set(named?.[3]?.split(', ') ?? []);
    return [...(named ? fields(at(named[1])).filter((f) => !less.has(f)) : []), ...Object.keys(s?.properties ?? {})].sort();
  };
  let extended = 0;
  let narrowed = 0;
  for (const [name, tool] of byName) {
    if (!tool.outputSchema) continue;
    if (/, plus:/.test(JSON.stringify(tool.outputSchema))) extended++;
    if (/, less: /.test(JSON.stringify(tool.outputSchema))) narrowed++;
    assert.deepEqual(fields(tool.outputSchema), Object.keys(full.get(name).properties ?? {}).sort(), name);
  }
  assert.ok(extended >= 3, `${extended} results extend another`);
  assert.ok(narrowed >= 1, `${narrowed} results narrow another`);
  // The profile updateBusiness returns is getBusiness's result without the business's other parts.
  assert.match(byName.get('updateBusiness').outputSchema.description, /^Same fields as getBusiness, less: id, apps, /);
  const createPayment = byName.get('createPayment').outputSchema;
  assert.equal(createPayment.description, 'Same fields as paymentGet, plus:');
  // As the list writes it: the fields in one line of notation.
  assert.equal((list.tools as any[]).find((t) => t.name === 'createPayment').outputSchema.description, '(Same fields as paymentGet, plus:){supplier{key, name}}');
});

test('every output schema of the full list reads back to the schema it was written from', async () => {
  const { notationOf, notatedOutput, shareOutputSchemas: share } = await import('../../../functions/src/surfaces/mcp/toolSchemas.ts');
  const { parseNotation } = await import('./outputNotation.ts');
  const entries = operations.map(toolOf).filter((e) => e.tool.outputSchema);
  const shared = share(entries.map((e) => ({ name: e.op.name, readOnly: Boolean(e.op.flags.readOnly), outputSchema: e.tool.outputSchema as any })));
  // A constant's type goes without saying: the notation writes the value alone.
  const canonical = (x: any): any => (Array.isArray(x) ? x.map(canonical) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).filter(([k]) => !(k === 'type' && 'const' in x)).map(([k, v]) => [k, canonical(v)])) : x);
  for (const [name, s] of shared) {
    const { type: _t, ...rest } = canonical(s);
    const written = notatedOutput(s as any);
    if (Object.keys(rest).length === 1 && 'description' in rest) assert.deepEqual(written, { type: 'object', description: rest.description }, name);
    else assert.deepEqual(parseNotation(notationOf(rest)), rest, name);
  }
  // Each construct, written and read back.
  const sample = { properties: { a: {}, b: { items: { properties: { c: {} } } }, d: { description: 'Same fields as x' }, e: { const: true }, f: { type: 'object' }, g: { type: 'object', additionalProperties: { properties: { h: {} } } }, i: { anyOf: [{ type: 'object' }, { type: 'null' }] }, j: { items: {} }, k: { const: 'PUT' } } };
  assert.equal(notationOf(sample), '{a, b[]{c}, d(Same fields as x), e=true, f{*}, g{*{h}}, i<{*}|null>, j[], k="PUT"}');
  assert.deepEqual(parseNotation(notationOf(sample)), sample);
});
