import { test, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../harness.ts';
import { engines } from '../engines.ts';
import { startSmtp } from '../fakes/smtp.ts';
import { startFakeWhatsApp } from '../fakes/whatsappCloudApi.ts';
import { sweepOutbox } from '../../functions/src/core/outboxSweep.ts';
import type { OutboxRecord } from '../../functions/src/core/outbox.ts';

/**
 * Issue 34: nothing acknowledged is lost in a mail outage. The SMTP server is really down (nothing listens on its port)
 * and really comes back; only the clock is simulated, so a day of retries takes seconds. The queue and the sweep run
 * as `npm start` runs them: the queue as it polls, the sweep every simulated step.
 */

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const outboxDocs = async (h: Harness) => (await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/outbox` })).map((d) => d.data as unknown as OutboxRecord);

/** A port that had an SMTP server and now has none. */
async function deadSmtpPort(): Promise<number> {
  const s = await startSmtp();
  const port = Number(new URL(s.url).port);
  await s.close();
  return port;
}

/** Runs the simulated clock forward in `stepMs` steps until `untilMs`, or until `stop` says so, as a running server would. */
async function runFor(h: Harness, clock: { now: number }, untilMs: number, stepMs: number, stop?: () => Promise<boolean>) {
  while (clock.now < untilMs) {
    await h.app.queue!.drain();
    await sweepOutbox(h.app.services);
    if (stop && (await stop())) return;
    clock.now += stepMs;
  }
}

for (const engine of engines) {
  describe(engine.name, { skip: engine.skip }, () => {
    test('an SMTP outage of several minutes: every acknowledged mail (supplier link, invite, accountant package) arrives exactly once when SMTP is back', { timeout: 120_000 }, async () => {
      const clock = { now: Date.parse('2026-03-10T08:00:00Z') };
      const port = await deadSmtpPort();
      const h = await createHarness({ env: { ...(await engine.env()), SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '2000' }, overrides: { clock: { now: () => clock.now } } });
      cleanups.push(() => h.close());
      const start = clock.now;
      // Each call answered ok: the business was told these mails are on their way.
      await h.call('createPayment', { amountAgorot: 120_000, vatIncluded: true, description: 'logo', supplierName: 'Dana', supplierEmail: 'supplier@example.com' });
      await h.call('inviteMember', { email: 'new.member@example.com', role: 'user' });
      await h.call('accZipSend', { from: '2026-02', to: '2026-02', recipients: ['cpa@example.com'] });

      // Eight minutes down: the old budget (6 attempts, 2–32 s apart) was spent after about a minute.
      await runFor(h, clock, start + 8 * 60_000, 15_000);
      let records = await outboxDocs(h);
      assert.equal(records.length, 3);
      assert.deepEqual(records.map((r) => r.status), ['pending', 'pending', 'pending'], JSON.stringify(records.map((r) => [r.status, r.attempts, r.lastError])));
      assert.ok(records.every((r) => r.attempts >= 3 && /ECONNREFUSED|connect/i.test(r.lastError ?? '')), 'tried and failed while down');

      const smtp = await startSmtp({ port });
      cleanups.push(() => smtp.close());
      await runFor(h, clock, start + 6 * 3600_000, 60_000, async () => (await outboxDocs(h)).every((r) => r.status !== 'pending'));
      records = await outboxDocs(h);
      assert.deepEqual(records.map((r) => r.status), ['delivered', 'delivered', 'delivered']);
      // Another day of queue and sweep sends nothing twice.
      await runFor(h, clock, clock.now + 24 * 3600_000, 30 * 60_000);
      assert.deepEqual(smtp.mails.map((m) => m.to.join()).sort(), ['cpa@example.com', 'new.member@example.com', 'supplier@example.com']);
    });

    test('an SMTP outage longer than the whole schedule (about a day): the supplier link ends not sent, the payment and the home screen say so, and sending again delivers it once', { timeout: 120_000 }, async () => {
      const clock = { now: Date.parse('2026-03-10T08:00:00Z') };
      const port = await deadSmtpPort();
      const h = await createHarness({ env: { ...(await engine.env()), SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '2000' }, overrides: { clock: { now: () => clock.now } } });
      cleanups.push(() => h.close());
      const start = clock.now;
      const p = await h.call('createPayment', { amountAgorot: 50_000, vatIncluded: true, description: 'print', supplierName: 'Noa', supplierEmail: 'noa@example.com' });

      await runFor(h, clock, start + 24 * 3600_000, 10 * 60_000);
      let [rec] = await outboxDocs(h);
      assert.equal(rec.status, 'pending', 'still tried a day later');
      assert.equal(rec.attempts, 7);
      await runFor(h, clock, start + 30 * 3600_000, 10 * 60_000);
      [rec] = await outboxDocs(h);
      assert.equal(rec.status, 'undelivered');
      assert.equal(rec.attempts, 8);
      // 5 s + 5 min + 30 min + 2 h + 5 h + 10 h + 10 h between the first attempt and the last, give or take a step.
      const spanS = (rec.lastAttemptAtMs - rec.createdAtMs) / 1000;
      assert.ok(spanS >= 99_305 && spanS <= 99_305 + 8 * 600, `last attempt ${spanS} s after the first`);

      const view = await h.call('paymentGet', { paymentId: p.id });
      assert.deepEqual(view.messages.map((m: any) => [m.channel, m.to, m.status]), [['email', 'noa@example.com', 'undelivered']]);
      const home = await h.call('attention');
      assert.equal(home.failedMessages.length, 1);
      assert.match(home.failedMessages[0].summary, /noa@example\.com.*not sent after 8 attempts/);
      assert.deepEqual(home.failedMessages[0].resend, { paymentId: p.id, channel: 'em' });

      const smtp = await startSmtp({ port });
      cleanups.push(() => smtp.close());
      await h.call('resendPayment', { paymentId: p.id, channel: 'em' });
      await runFor(h, clock, clock.now + 3600_000, 5 * 60_000);
      assert.deepEqual(smtp.mails.map((m) => m.to.join()), ['noa@example.com']);
      assert.deepEqual((await outboxDocs(h)).map((r) => r.status).sort(), ['delivered', 'undelivered']);
    });

    test('a 5xx reply to RCPT TO fails the message at once; a 4xx reply is retried until the server takes it', { timeout: 60_000 }, async () => {
      let busy = 2;
      const smtp = await startSmtp({
        refuseRcpt: (to) =>
          to === 'gone@example.com' ? { code: 550, message: '5.1.1 No such user' } : to === 'busy@example.com' && busy-- > 0 ? { code: 451, message: '4.3.2 Try again later' } : null,
      });
      const clock = { now: Date.parse('2026-03-10T08:00:00Z') };
      const h = await createHarness({ env: { ...(await engine.env()), SMTP_URL: smtp.url }, overrides: { clock: { now: () => clock.now } } });
      cleanups.push(() => smtp.close(), () => h.close());
      await h.call('inviteMember', { email: 'gone@example.com', role: 'user' });
      await h.call('inviteMember', { email: 'busy@example.com', role: 'user' });
      await h.app.queue!.drain();
      const byTo = async () => Object.fromEntries((await outboxDocs(h)).map((r) => [r.to, r]));
      let recs = await byTo();
      assert.equal(recs['gone@example.com'].status, 'failed');
      assert.equal(recs['gone@example.com'].attempts, 1);
      assert.match(recs['gone@example.com'].lastError!, /550/);
      assert.equal(recs['busy@example.com'].status, 'pending');
      await runFor(h, clock, clock.now + 3600_000, 60_000, async () => (await byTo())['busy@example.com'].status !== 'pending');
      recs = await byTo();
      assert.equal(recs['busy@example.com'].status, 'delivered');
      assert.equal(recs['busy@example.com'].attempts, 3);
      assert.equal(recs['gone@example.com'].attempts, 1, 'a refused message is not tried again');
      assert.deepEqual(smtp.mails.map((m) => m.to.join()), ['busy@example.com']);
      const activity = await h.call('listActivity');
      assert.deepEqual(activity.items.filter((r: any) => r.operation === 'messageFailed').map((r: any) => /gone@example\.com.*refused.*550/.test(r.summary)), [true]);
    });
  });
}

// The time limit is the sender's, not the store's: SQLite only.
test('a WhatsApp endpoint that never answers: email to the same business goes out meanwhile, and the WhatsApp attempt ends at the time limit and is retried', { timeout: 60_000 }, async () => {
  const wa = await startFakeWhatsApp({ token: 'wa-token', phoneNumberId: '1055' });
  const smtp = await startSmtp();
  const clock = { now: Date.parse('2026-03-10T08:00:00Z') };
  const h = await createHarness({
    env: { SMTP_URL: smtp.url, WHATSAPP_BASE_URL: wa.baseUrl, WHATSAPP_TOKEN: 'wa-token', WHATSAPP_PHONE_NUMBER_ID: '1055', PROVIDER_TIMEOUT_MS: '1500', LOCAL_QUEUE_CONCURRENCY: '1' },
    overrides: { clock: { now: () => clock.now } },
  });
  cleanups.push(() => wa.close(), () => smtp.close(), () => h.close());
  wa.hangNext(1);
  await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: true, description: 'x', supplierName: 'Dana', supplierPhone: '050-123-4567', supplierEmail: 'dana@example.com' });
  const began = Date.now();
  const draining = h.app.queue!.drain();
  await smtp.waitFor(1, 5000);
  assert.equal(smtp.mails.length, 1, 'the email went out');
  const waRecord = async () => (await outboxDocs(h)).find((r) => r.channel === 'whatsapp')!;
  for (let i = 0; i < 40 && wa.hung < 1; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(wa.hung, 1, 'the WhatsApp request is being held');
  assert.equal((await waRecord()).attempts, 0, 'while the WhatsApp attempt was still waiting');
  await draining;
  assert.ok(Date.now() - began < 10_000, `the hanging attempt took ${Date.now() - began} ms`);
  let rec = await waRecord();
  assert.equal(rec.status, 'pending');
  assert.equal(rec.attempts, 1);
  assert.match(rec.lastError ?? '', /timeout|aborted/i);
  clock.now += 10_000;
  await h.app.queue!.drain();
  rec = await waRecord();
  assert.equal(rec.status, 'delivered');
  assert.equal(wa.accepted.length, 1);
});
