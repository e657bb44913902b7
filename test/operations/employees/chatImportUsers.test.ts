import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeSlack, slackEnv, connectChat, type FakeSlack } from '../../fakes/slack.ts';

let h: Harness;
let fake: FakeSlack;
before(async () => {
  fake = await startFakeSlack({ members: 12 });
  h = await createHarness({ env: slackEnv(fake) });
  await connectChat(h, fake);
});
after(async () => {
  await h.close();
  await fake.close();
});

test('imports members as chat employees with name, email, phone and title from the profile', async () => {
  const r = await h.call('chatImportUsers', { ids: ['U0001PERSON', 'U0003PERSON'] });
  assert.equal(r.created, 2);
  assert.equal(r.updated, 0);
  const e = r.items.find((x: any) => x.chatUserId === 'U0001PERSON');
  assert.deepEqual(
    { name: e.name, email: e.email, phone: e.phone, title: e.title, status: e.status, source: e.source },
    { name: 'Person 0001', email: 'person0001@example.com', phone: '+972501000000', title: 'Role 0001', status: 'active', source: 'chat' },
  );
  const list = await h.call('employeesList');
  assert.deepEqual(list.items.map((x: any) => x.name), ['Person 0001', 'Person 0003']);
  const { items } = await h.call('listActivity');
  assert.ok(items.some((a: any) => a.operation === 'chatImportUsers' && a.summary === 'imported 2 employees from Slack (2 new)'));
});

test('importing again updates from the profile, keeps the status, and never duplicates', async () => {
  const [first] = (await h.call('chatImportUsers', { ids: ['U0005PERSON'] })).items;
  await h.call('employeeUpdate', { id: first.id, name: first.name, status: 'inactive' });
  const m = fake.members.find((x) => x.id === 'U0005PERSON')!;
  m.profile = { ...m.profile, real_name: 'Person Five Renamed', title: 'Team lead', phone: '+972 52 999 8888', email: 'Five@New.Example' };
  const again = await h.call('chatImportUsers', { ids: ['U0005PERSON', 'U0005PERSON', 'U0006PERSON'] });
  assert.equal(again.created, 1);
  assert.equal(again.updated, 1);
  const list = (await h.call('employeesList')).items.filter((x: any) => x.chatUserId === 'U0005PERSON');
  assert.equal(list.length, 1);
  assert.equal(list[0].id, first.id);
  assert.deepEqual([list[0].name, list[0].title, list[0].phone, list[0].email, list[0].status], ['Person Five Renamed', 'Team lead', '+972529998888', 'five@new.example', 'inactive']);
  assert.equal(list[0].createdAt, first.createdAt);
});

test('two imports of the same members at once still leave one employee each', async () => {
  await Promise.all([1, 2, 3].map(() => h.call('chatImportUsers', { ids: ['U0008PERSON', 'U0009PERSON'] })));
  const list = (await h.call('employeesList')).items.filter((x: any) => ['U0008PERSON', 'U0009PERSON'].includes(x.chatUserId));
  assert.equal(list.length, 2);
});

test('an unknown id answers not-found naming it, and nothing is imported', async () => {
  const before = (await h.call('employeesList')).total;
  await assert.rejects(h.call('chatImportUsers', { ids: ['U0010PERSON', 'UNOSUCH1'] }), { code: 'not-found', message: /UNOSUCH1/ });
  assert.equal((await h.call('employeesList')).total, before);
});

test('bots, deactivated members and Slackbot are refused naming them', async () => {
  await assert.rejects(h.call('chatImportUsers', { ids: ['UBOT0001'] }), { code: 'invalid-argument', message: /^ids: UBOT0001 is a bot/ });
  await assert.rejects(h.call('chatImportUsers', { ids: ['UGONE0001', 'USLACKBOT'] }), { code: 'invalid-argument', message: /UGONE0001, USLACKBOT are bots/ });
});

test('ids are checked', async () => {
  await assert.rejects(h.call('chatImportUsers', {}), { code: 'invalid-argument', message: /^ids: / });
  await assert.rejects(h.call('chatImportUsers', { ids: [] }), { code: 'invalid-argument', message: /^ids: / });
  await assert.rejects(h.call('chatImportUsers', { ids: ['u lower'] }), { code: 'invalid-argument', message: /^ids\.0: / });
  await assert.rejects(h.call('chatImportUsers', { ids: Array.from({ length: 201 }, (_, i) => `U${i}`) }), { code: 'invalid-argument', message: /^ids: / });
});

test('another business cannot import through this connection, and never sees these employees', async () => {
  const other = await h.newBusiness('Other Co');
  await assert.rejects(h.call('chatImportUsers', { ids: ['U0001PERSON'] }, other), { code: 'failed-precondition', message: /not connected/ });
  assert.equal((await h.call('employeesList', {}, other)).total, 0);
  // Connected to its own workspace, the same member becomes its own employee, separate from ours.
  await connectChat(h, fake, other);
  await h.call('chatImportUsers', { ids: ['U0001PERSON'] }, other);
  const theirs = (await h.call('employeesList', {}, other)).items;
  assert.equal(theirs.length, 1);
  const mine = (await h.call('employeesList')).items.find((x: any) => x.chatUserId === 'U0001PERSON');
  // Deleting "that" member in the other business deletes only its own record.
  await h.call('employeeDelete', { id: theirs[0].id }, other);
  assert.equal((await h.call('employeesList', {}, other)).total, 0);
  assert.ok((await h.call('employeesList')).items.some((x: any) => x.id === mine.id));
});
