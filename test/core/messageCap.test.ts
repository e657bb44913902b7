import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../harness.ts';
import { engines } from '../engines.ts';
import { post } from '../http.ts';
import { startSmtp } from '../fakes/smtp.ts';
import { loadConfig } from '../../functions/src/config.ts';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

for (const engine of engines) {
  test(`outgoing messages are capped per business per Israeli day: past the cap the call is refused whole, 429 resource-exhausted naming the cap (${engine.name})`, { skip: engine.skip }, async () => {
    const smtp = await startSmtp();
    // 22:00 in Israel (UTC+2 in early March): two hours to the reset.
    let now = Date.parse('2026-03-10T20:00:00Z');
    const h = await createHarness({ env: { ...(await engine.env()), SMTP_URL: smtp.url, QUOTA_MESSAGES: '3' }, overrides: { clock: { now: () => now } } });
    cleanups.push(() => smtp.close(), () => h.close());
    const origin = await h.listen();
    const outbox = async (businessId = h.owner.businessId) => (await h.app.services.store.query({ collection: `businesses/${businessId}/outbox` })).length;

    // A payment request by WhatsApp and email is two messages, an invite one.
    await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: true, description: 'x', supplierName: 'Dana', supplierPhone: '050-123-4567', supplierEmail: 'dana@example.com' });
    await h.call('inviteMember', { email: 'one@example.com', role: 'user' });
    assert.equal(await outbox(), 3);

    const res = await post(origin, '/v1/inviteMember', { email: 'two@example.com', role: 'user' }, h.owner.apiKey);
    assert.equal(res.status, 429);
    assert.equal(res.body.error.code, 'resource-exhausted');
    assert.match(res.body.error.message, /daily cap of 3 outgoing messages \(QUOTA_MESSAGES\)/);
    assert.equal(res.headers.get('retry-after'), '7200');
    // Nothing of the refused call happened: no invite, no message.
    assert.equal(await outbox(), 3);
    assert.deepEqual((await h.call('listTeam')).invites.map((i: any) => i.email), ['one@example.com']);
    // A payment that would send its link is refused whole too; one sent by link only (no message) still works.
    await assert.rejects(h.call('createPayment', { amountAgorot: 500, vatIncluded: true, description: 'y', supplierName: 'Noa', supplierEmail: 'noa@example.com' }), { code: 'resource-exhausted' });
    assert.equal((await h.call('paymentsList', {})).items.length, 1);
    await h.call('createPayment', { amountAgorot: 500, vatIncluded: true, description: 'y', supplierName: 'Noa', supplierEmail: 'noa@example.com', channel: 'link' });
    assert.equal((await h.call('paymentsList', {})).items.length, 2);
    assert.equal(await outbox(), 3);

    // Another business has its own cap.
    const other = await h.newBusiness();
    await h.call('inviteMember', { email: 'three@example.com', role: 'user' }, other);
    assert.equal(await outbox(other.businessId), 1);

    // Midnight in Israel starts a new day.
    now += 2 * 3600_000 + 60_000;
    assert.equal((await post(origin, '/v1/inviteMember', { email: 'two@example.com', role: 'user' }, h.owner.apiKey)).status, 200);
    assert.equal(await outbox(), 4);
  });
}

test('the default cap is 500 messages a day; QUOTA_MESSAGES changes it', () => {
  assert.equal(loadConfig({}).quotas.messages, 500);
  assert.equal(loadConfig({ QUOTA_MESSAGES: '40' }).quotas.messages, 40);
});
