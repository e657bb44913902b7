import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../../harness.ts';
import { startFakeWhatsApp } from '../../fakes/whatsappCloudApi.ts';
import type { OutboxRecord } from '../../../functions/src/core/outbox.ts';

/**
 * Issue 34 A1: a message ends `failed` only when the provider refused it for good. Meta answers its throughput limit
 * with HTTP 400 and code 130429, which a retry fixes; an invalid message (code 100) is a refusal.
 */
const wa = await startFakeWhatsApp({ token: 'wa-token', phoneNumberId: '1055' });
const clock = { now: Date.parse('2026-03-10T08:00:00Z') };
const h = await createHarness({
  env: { WHATSAPP_BASE_URL: wa.baseUrl, WHATSAPP_TOKEN: 'wa-token', WHATSAPP_PHONE_NUMBER_ID: '1055' },
  overrides: { clock: { now: () => clock.now } },
});
after(async () => {
  await h.close();
  await wa.close();
});
const waRecords = async () =>
  (await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/outbox` })).map((d) => d.data as unknown as OutboxRecord).filter((r) => r.channel === 'whatsapp');

test("WhatsApp's throughput limit (HTTP 400, code 130429) is retried, and the supplier link arrives", async () => {
  wa.throttleNext(2);
  const p = await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: true, description: 'x', supplierName: 'Dana', supplierPhone: '050-123-4567' });
  await h.app.queue!.drain();
  let [rec] = await waRecords();
  assert.equal(rec.status, 'pending', rec.lastError ?? '');
  assert.match(rec.lastError ?? '', /130429|Rate limit/);
  for (let i = 0; i < 3 && rec.status === 'pending'; i++) {
    clock.now += 6 * 60_000;
    await h.app.queue!.drain();
    [rec] = await waRecords();
  }
  assert.equal(rec.status, 'delivered');
  assert.equal(wa.accepted.length, 1);
  const view = await h.call('paymentGet', { paymentId: p.id });
  assert.deepEqual(view.messages.map((m: any) => [m.channel, m.status]), [['whatsapp', 'delivered']]);
});
