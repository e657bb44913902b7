import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startSmtp, mailText } from '../../fakes/smtp.ts';

let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp();
  h = await createHarness({ env: { SMTP_URL: smtp.url, DASHBOARD_URL: 'https://app.example.com' } });
});
after(async () => {
  await h.close();
  await smtp.close();
});

test('invites by email with a 7-day link, delivered through the outbox', async () => {
  const before = Date.now();
  const invite = await h.call('inviteMember', { email: 'New.Person@Example.com', role: 'user' });
  assert.equal(invite.email, 'new.person@example.com');
  assert.equal(invite.status, 'pending');
  const days = (Date.parse(invite.expiresAt) - before) / 86_400_000;
  assert.ok(days > 6.99 && days <= 7.01, String(days));
  await h.app.queue!.drain();
  const [mail] = await smtp.waitFor(1);
  assert.deepEqual(mail.to, ['new.person@example.com']);
  const text = mailText(mail.raw);
  assert.match(text, /https:\/\/app\.example\.com\/invite\/[A-Za-z0-9_-]{43}/);
  assert.match(text, /Test Business/);
});

test('the invite is listed as pending', async () => {
  const team = await h.call('listTeam');
  assert.deepEqual(team.invites.map((i: any) => [i.email, i.role, i.expired]), [['new.person@example.com', 'user', false]]);
});

test('a second invite to the same address, or to a member, is already-exists', async () => {
  await assert.rejects(h.call('inviteMember', { email: 'new.person@example.com', role: 'admin' }), { code: 'already-exists', message: /resendInvite/ });
  await assert.rejects(h.call('inviteMember', { email: h.owner.email, role: 'user' }), { code: 'already-exists', message: /already a member/ });
});

test('is admin only', async () => {
  const m = await h.addMember('user');
  await assert.rejects(h.call('inviteMember', { email: 'x@example.com', role: 'user' }, m), { code: 'permission-denied' });
});

test('an invalid email names the field', async () => {
  await assert.rejects(h.call('inviteMember', { email: 'not-an-email', role: 'user' }), { code: 'invalid-argument', message: /^email: expected an email address/ });
});
