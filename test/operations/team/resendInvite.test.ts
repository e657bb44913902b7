import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startSmtp, mailText } from '../../fakes/smtp.ts';
import { sha256 } from '../../../functions/src/core/ids.ts';

let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp();
  h = await createHarness({ env: { SMTP_URL: smtp.url } });
});
after(async () => {
  await h.close();
  await smtp.close();
});

const tokenIn = (raw: string) => /\/invite\/([A-Za-z0-9_-]{43})/.exec(mailText(raw))![1];

test('a resend emails a fresh link and the old one dies', async () => {
  const invite = await h.call('inviteMember', { email: 'sam@example.com', role: 'admin' });
  await h.app.queue!.drain();
  const first = tokenIn((await smtp.waitFor(1))[0].raw);
  const again = await h.call('resendInvite', { inviteId: invite.inviteId });
  await h.app.queue!.drain();
  const second = tokenIn((await smtp.waitFor(2))[1].raw);
  assert.notEqual(first, second);
  const stored = await h.app.services.store.get(`businesses/${h.owner.businessId}/invites/${invite.inviteId}`);
  assert.equal(stored!.data.tokenHash, sha256(second));
  assert.notEqual(stored!.data.tokenHash, sha256(first));
  assert.ok(Date.parse(again.expiresAt) >= Date.parse(invite.expiresAt));
});

test('an unknown invite is not-found; a revoked one cannot be resent', async () => {
  await assert.rejects(h.call('resendInvite', { inviteId: 'nope' }), { code: 'not-found' });
  const invite = await h.call('inviteMember', { email: 'kim@example.com', role: 'user' });
  await h.call('revokeInvite', { inviteId: invite.inviteId });
  await assert.rejects(h.call('resendInvite', { inviteId: invite.inviteId }), { code: 'failed-precondition', message: /revoked/ });
});

test('another business cannot resend my invite', async () => {
  const invite = await h.call('inviteMember', { email: 'lee@example.com', role: 'user' });
  const other = await h.newBusiness();
  await assert.rejects(h.call('resendInvite', { inviteId: invite.inviteId }, other), { code: 'not-found' });
});
