import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createHarness, type Harness } from '../../harness.ts';
import { get, post, rawRequest } from '../../http.ts';
import { createRegistry, operations } from '../../../functions/src/operations/index.ts';
import { defineOperation } from '../../../functions/src/core/defineOperation.ts';
import { input } from '../../../functions/src/core/schema.ts';

// Two operations that exist only in this test: one echoes GET coercion, one fails unexpectedly.
const echo = defineOperation({
  name: 'echoQuery',
  group: 'test',
  summary: 'echo',
  flags: { readOnly: true },
  input: input({
    n: z.int().optional(),
    ratio: z.number().optional(),
    flag: z.boolean().optional(),
    word: z.string().max(20).optional(),
    ids: z.array(z.string().max(20)).max(5).optional(),
    filter: z.strictObject({ from: z.string().max(10), count: z.int() }).optional(),
  }),
  output: z.any(),
  run: async (i) => i,
});
const boom = defineOperation({
  name: 'boom',
  group: 'test',
  summary: 'fails',
  flags: {},
  input: input({}),
  output: z.any(),
  run: async () => {
    throw new Error('database password is hunter2');
  },
});

let h: Harness;
let origin: string;
before(async () => {
  h = await createHarness({ registry: createRegistry([...operations, echo, boom]) });
  origin = await h.listen();
});
after(() => h.close());

test('POST /v1/<operation> answers {ok:true, result} with a request id', async () => {
  const res = await post(origin, '/v1/whoami', {}, h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.ok, true);
  assert.equal(res.body.result.businessId, h.owner.businessId);
  assert.match(res.headers.get('x-request-id') ?? '', /^req_[A-Za-z0-9]{16}$/);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
});

test('the /api/v1 alias is served by the same handler', async () => {
  const res = await post(origin, '/api/v1/whoami', {}, h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.userId, h.owner.userId);
});

test('each request gets its own request id', async () => {
  const a = await post(origin, '/v1/whoami', {}, h.owner.apiKey);
  const b = await post(origin, '/v1/whoami', {}, h.owner.apiKey);
  assert.notEqual(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
});

test('read-only operations also answer GET', async () => {
  const res = await get(origin, '/v1/whoami', h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.role, 'admin');
});

test('GET coerces query values to the schema types; arrays are repeated keys, objects JSON text', async () => {
  const qs = 'n=42&ratio=0.5&flag=true&word=123&ids=a&ids=b&filter=' + encodeURIComponent('{"from":"2026-01","count":3}');
  const res = await get(origin, `/v1/echoQuery?${qs}`, h.owner.apiKey);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.result, { n: 42, ratio: 0.5, flag: true, word: '123', ids: ['a', 'b'], filter: { from: '2026-01', count: 3 } });
  const single = await get(origin, '/v1/echoQuery?ids=only', h.owner.apiKey);
  assert.deepEqual(single.body.result, { ids: ['only'] });
});

test('GET values that do not coerce are refused naming the field', async () => {
  for (const [qs, field] of [['n=4x', 'n'], ['flag=yes', 'flag'], ['filter=%7Bbad', 'filter'], ['word=a&word=b', 'word'], ['nope=1', 'nope']]) {
    const res = await get(origin, `/v1/echoQuery?${qs}`, h.owner.apiKey);
    assert.equal(res.status, 400, qs);
    assert.equal(res.body.error.code, 'invalid-argument');
    assert.match(res.body.error.message, new RegExp(`^${field}:`), qs);
  }
});

test('GET on an operation that is not read-only is 405 with Allow: POST', async () => {
  const res = await get(origin, '/v1/updateBusiness?name=x', h.owner.apiKey);
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'POST');
  assert.equal(res.body.ok, false);
  assert.equal(res.body.error.code, 'invalid-argument');
});

test('an unknown operation is 404 not-found', async () => {
  const res = await post(origin, '/v1/noSuchThing', {}, h.owner.apiKey);
  assert.equal(res.status, 404);
  assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'details', 'message']);
  assert.deepEqual(res.body.error.details, { reason: 'unknownOperation', params: { name: 'noSuchThing' } });
  assert.equal(res.body.error.code, 'not-found');
  assert.match(res.body.error.message, /noSuchThing/);
});

test('an unknown path is 404 in the envelope', async () => {
  const res = await get(origin, '/nowhere');
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, 'not-found');
});

test('a POST with no body at all is 411 before auth, in the JSON envelope', async () => {
  const res = await rawRequest(origin, 'POST /v1/whoami HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  assert.equal(res.status, 411);
  assert.match(res.head, /x-request-id: req_/i);
  assert.match(res.head, /content-type: application\/json/i);
  const body = JSON.parse(res.body);
  assert.equal(body.ok, false);
  assert.equal(body.error.code, 'invalid-argument');
  assert.match(body.error.message, /^body: .*send \{\}/);
});

test('a body that is not a JSON object is 400 invalid-argument', async () => {
  for (const body of ['[1,2]', '"text"', 'null', '{not json', '']) {
    const res = await post(origin, '/v1/whoami', body, h.owner.apiKey);
    assert.equal(res.status, 400, body);
    assert.equal(res.body.error.code, 'invalid-argument');
    assert.match(res.body.error.message, /^body:/);
  }
});

test('a body over the limit is 413, and a 5 MB file in base64 fits', async () => {
  const tooBig = await post(origin, '/v1/updateBusiness', { name: 'x'.repeat(15 * 1024 * 1024) }, h.owner.apiKey);
  assert.equal(tooBig.status, 413);
  assert.equal(tooBig.body.ok, false);
  // The largest legal request reaches validation (and is refused there for its field, not for its size).
  const legal = await post(origin, '/v1/updateBusiness', { name: Buffer.alloc(5 * 1024 * 1024).toString('base64') }, h.owner.apiKey);
  assert.equal(legal.status, 400);
  assert.match(legal.body.error.message, /^name: at most 200 characters/);
});

test('invalid input names the field and what is wrong', async () => {
  const res = await post(origin, '/v1/setBusinessApp', { app: 'casino', enabled: 'yes' }, h.owner.apiKey);
  assert.equal(res.status, 400);
  assert.match(res.body.error.message, /app: expected one of/);
  assert.match(res.body.error.message, /enabled: expected boolean/);
});

test('an unexpected error is 500 internal with the request id and no internals', async () => {
  const res = await post(origin, '/v1/boom', {}, h.owner.apiKey);
  assert.equal(res.status, 500);
  assert.equal(res.body.error.code, 'internal');
  const id = res.headers.get('x-request-id')!;
  assert.ok(res.body.error.message.includes(id));
  assert.doesNotMatch(JSON.stringify(res.body), /hunter2|at .*\.ts|Error:/);
});

test('GET {base} is the catalogue of every operation with group, flags and summary', async () => {
  const res = await get(origin, '/v1');
  assert.equal(res.status, 200);
  const ops = res.body.result.operations as any[];
  assert.equal(ops.length, h.registry.size);
  const remove = ops.find((o) => o.name === 'removeMember');
  assert.deepEqual(remove.flags, { readOnly: false, dangerous: true, adminOnly: true });
  assert.equal(remove.group, 'team');
  assert.ok(remove.summary.length > 10);
  assert.deepEqual(ops.find((o) => o.name === 'whoami').methods, ['POST', 'GET']);
  const alias = await get(origin, '/api/v1/');
  assert.equal(alias.body.result.operations.length, ops.length);
});

test('responses report the document reads and writes of the request', async () => {
  const res = await post(origin, '/v1/updateBusiness', { city: 'Haifa' }, h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.ok(Number(res.headers.get('x-doc-reads')) >= 2, 'key and membership at least');
  assert.ok(Number(res.headers.get('x-doc-writes')) >= 2, 'the business and its activity row');
});
