import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createHarness, type Harness } from '../../harness.ts';
import { get, post } from '../../http.ts';

let h: Harness;
let origin: string;
let doc: any;
before(async () => {
  h = await createHarness();
  origin = await h.listen();
  doc = (await get(origin, '/v1/openapi.json')).body;
});
after(() => h.close());

test('the served document is valid OpenAPI 3.1 by a real validator', async () => {
  assert.equal(doc.openapi, '3.1.0');
  const result = await new Validator().validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
});

test('every operation has a POST; read-only ones also a GET, the others none', () => {
  for (const op of h.registry.values()) {
    const item = doc.paths[`/${op.name}`];
    assert.ok(item?.post, op.name);
    assert.equal(Boolean(item.get), Boolean(op.flags.readOnly), op.name);
  }
  assert.equal(Object.keys(doc.paths).filter((p) => p !== '/' && p !== '/openapi.json').length, h.registry.size);
});

test('it declares the bearer scheme, the error envelope and how arrays and objects travel in GET', () => {
  const bearer = doc.components.securitySchemes.bearer;
  assert.deepEqual({ type: bearer.type, scheme: bearer.scheme }, { type: 'http', scheme: 'bearer' });
  assert.match(bearer.description, /API key \(bfo_/);
  assert.match(bearer.description, /Firebase Auth ID token/);
  assert.match(bearer.description, /X-Business-Id/);
  assert.deepEqual(doc.security, [{ bearer: [] }]);
  assert.deepEqual(doc.components.schemas.ErrorEnvelope.required, ['ok', 'error']);
  assert.equal(doc.paths['/removeMember'].post.responses['403'].content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
  assert.match(doc.info.description, /arrays as repeated keys/);
  const param = doc.paths['/listActivity'].get.parameters.find((p: any) => p.name === 'before');
  assert.equal(param.in, 'query');
  assert.equal(param.schema.type, 'integer');
});

test('real responses match the schemas the document promises', async () => {
  const ajv = new Ajv2020({ strict: false });
  const check = (path: string, status: string, body: unknown) => {
    const schema = doc.paths[path].post.responses[status].content['application/json'].schema;
    const resolved = schema.$ref ? doc.components.schemas.ErrorEnvelope : schema;
    const validate = ajv.compile(resolved);
    assert.ok(validate(body), `${path} ${status}: ${JSON.stringify(validate.errors)}`);
  };
  for (const name of ['whoami', 'getBusiness', 'listTeam', 'getMyPublicLink', 'listActivity']) {
    const res = await post(origin, `/v1/${name}`, {}, h.owner.apiKey);
    assert.equal(res.status, 200, name);
    check(`/${name}`, '200', res.body);
  }
  const bad = await post(origin, '/v1/setBusinessApp', {}, h.owner.apiKey);
  check('/setBusinessApp', '400', bad.body);
});
