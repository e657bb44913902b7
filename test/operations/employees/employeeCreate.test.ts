import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('creates a manual, active employee with the email lower-cased and the phone as E.164', async () => {
  const e = await h.call('employeeCreate', { name: '  Dana Levi ', email: ' Dana.Levi@Example.COM ', phone: '050-123-4567', title: 'Bookkeeper' });
  assert.match(e.id, /^[A-Za-z0-9_-]+$/);
  assert.equal(e.name, 'Dana Levi');
  assert.equal(e.email, 'dana.levi@example.com');
  assert.equal(e.phone, '+972501234567');
  assert.equal(e.title, 'Bookkeeper');
  assert.equal(e.status, 'active');
  assert.equal(e.source, 'manual');
  assert.equal(e.chatUserId, null);
  const { items } = await h.call('employeesList');
  assert.deepEqual(items.find((x: any) => x.id === e.id), e);
});

test('only the name is required; international phones and inactive status are kept', async () => {
  const e = await h.call('employeeCreate', { name: 'Just A Name' });
  assert.deepEqual([e.email, e.phone, e.title, e.status], [null, null, null, 'active']);
  const f = await h.call('employeeCreate', { name: 'Abroad', phone: '+1 212 555 0100', status: 'inactive', email: '' });
  assert.equal(f.phone, '+12125550100');
  assert.equal(f.status, 'inactive');
  assert.equal(f.email, null);
});

test('bad input is refused naming the field and creates nothing', async () => {
  const before = (await h.call('employeesList')).total;
  const cases: [unknown, RegExp][] = [
    [{}, /^name: /],
    [{ name: '   ' }, /^name: /],
    [{ name: 'X', email: 'not-an-email' }, /^email: /],
    [{ name: 'X', phone: '050-12' }, /^phone: "050-12" is not a valid phone/],
    [{ name: 'X', status: 'retired' }, /^status: /],
    [{ name: 'X', source: 'chat' }, /source/],
    [{ name: 'Line\nbreak' }, /^name: control characters/],
    [{ name: 'Evil\u202Etxt.exe' }, /^name: bidirectional/],
    [{ name: 'X', title: 'a'.repeat(201) }, /^title: /],
  ];
  for (const [input, message] of cases) {
    await assert.rejects(h.call('employeeCreate', input), { code: 'invalid-argument', message }, JSON.stringify(input));
  }
  assert.equal((await h.call('employeesList')).total, before);
});

test('writes an activity row naming the employee', async () => {
  const e = await h.call('employeeCreate', { name: 'Logged Person' });
  const { items } = await h.call('listActivity');
  const row = items.find((r: any) => r.operation === 'employeeCreate' && r.targetIds[0] === e.id);
  assert.equal(row.summary, 'added employee Logged Person');
});

test('an employee belongs to its business only', async () => {
  const other = await h.newBusiness('Other Co');
  await h.call('employeeCreate', { name: 'Other Person' }, other);
  const mine = await h.call('employeesList');
  assert.equal(mine.items.some((x: any) => x.name === 'Other Person'), false);
  assert.deepEqual((await h.call('employeesList', {}, other)).items.map((x: any) => x.name), ['Other Person']);
});

test('over HTTP with the API key', async () => {
  const origin = await h.listen();
  const res = await post(origin, '/v1/employeeCreate', { name: 'Via HTTP', phone: '+972 54 111 2222' }, h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.phone, '+972541112222');
  const bad = await post(origin, '/v1/employeeCreate', { name: 'Bad', email: 'nope' }, h.owner.apiKey);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid-argument');
});
