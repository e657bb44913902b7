import { test, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../harness.ts';
import { engines } from '../engines.ts';
import { startSmtp, mailText } from '../fakes/smtp.ts';
import { startFakeWhatsApp } from '../fakes/whatsappCloudApi.ts';
import { deliverOutboxRecord, outboxPath, stageMessage } from '../../functions/src/core/outbox.ts';
import { sweepOutbox } from '../../functions/src/core/outboxSweep.ts';
import { silentLogger } from '../../functions/src/core/logger.ts';
import type { WhatsAppMessage } from '../../functions/src/ports/outbox.ts';
import { DELETE_FIELD } from '../../functions/src/ports/store.ts';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const outboxDocs = async (h: Awaited<ReturnType<typeof createHarness>>) =>
  (await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/outbox` })).map((d) => d.data as any);

test('the message is written in the same transaction as its cause, then delivered by SMTP', async () => {
  const smtp = await startSmtp();
  const h = await createHarness({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Finance <noreply@example.com>' } });
  cleanups.push(() => smtp.close(), () => h.close());
  await h.call('inviteMember', { email: 'a@example.com', role: 'user' });
  const [pending] = await outboxDocs(h);
  assert.equal(pending.status, 'pending');
  assert.equal(pending.channel, 'email');
  await h.app.queue!.drain();
  const [mail] = await smtp.waitFor(1);
  assert.equal(mail.from, 'noreply@example.com');
  assert.match(mailText(mail.raw), /Message-ID: <[A-Za-z0-9]{20}@/i);
  const [done] = await outboxDocs(h);
  assert.equal(done.status, 'delivered');
  assert.equal(done.attempts, 1);
});

test('a failed operation leaves no outbox record', async () => {
  const h = await createHarness();
  cleanups.push(() => h.close());
  await h.call('inviteMember', { email: 'a@example.com', role: 'user' });
  await assert.rejects(h.call('inviteMember', { email: 'a@example.com', role: 'user' }));
  assert.equal((await outboxDocs(h)).length, 1);
});

test('with SMTP not configured the record stays undelivered with the reason, and is logged', async () => {
  const logs: string[] = [];
  const h = await createHarness({ overrides: { logger: { ...silentLogger, warn: (m, f) => logs.push(m + JSON.stringify(f)) } } });
  cleanups.push(() => h.close());
  await h.call('inviteMember', { email: 'b@example.com', role: 'user' });
  await h.app.queue!.drain();
  const [rec] = await outboxDocs(h);
  assert.equal(rec.status, 'undelivered');
  assert.match(rec.lastError, /email channel is not configured/);
  assert.ok(logs.some((l) => /undelivered/.test(l)));
});

test('an SMTP outage is retried with backoff until the message goes out, once', async () => {
  let now = Date.now();
  const smtp = await startSmtp();
  const port = new URL(smtp.url).port;
  await smtp.close(); // nothing listens on that port now
  const h = await createHarness({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` }, overrides: { clock: { now: () => now } } });
  cleanups.push(() => h.close());
  await h.call('inviteMember', { email: 'c@example.com', role: 'user' });
  await h.app.queue!.drain();
  let [rec] = await outboxDocs(h);
  assert.equal(rec.status, 'pending');
  assert.equal(rec.attempts, 1);
  assert.ok(rec.lastError);
  // The server comes back on the same port; the retry is due only after the backoff.
  const { SMTPServer } = await import('smtp-server');
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, cb) {
      stream.resume();
      stream.on('end', () => {
        received++;
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(Number(port), '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(() => r())));
  assert.equal(await h.app.queue!.drain(), 0, 'not due before the backoff');
  now += 10 * 60_000;
  await h.app.queue!.drain();
  [rec] = await outboxDocs(h);
  assert.equal(rec.status, 'delivered');
  assert.equal(rec.attempts, 2);
  await h.app.queue!.drain();
  assert.equal(received, 1);
});

test('WhatsApp goes to the Cloud API as a template with the link; a refusal ends failed, an outage is retried', async () => {
  const wa = await startFakeWhatsApp({ token: 'wa-token', phoneNumberId: '1055' });
  const h = await createHarness({ env: { WHATSAPP_BASE_URL: wa.baseUrl, WHATSAPP_TOKEN: 'wa-token', WHATSAPP_PHONE_NUMBER_ID: '1055' } });
  cleanups.push(() => wa.close(), () => h.close());
  const { store, ids, clock } = h.app.services;
  const msg: WhatsAppMessage = { channel: 'whatsapp', to: '+972501234567', template: 'payment_request', language: 'he', bodyParams: ['Studio Dana', '₪1,200.00'], urlButtonParam: 'p/abc123' };
  const path = await store.runTransaction(async (tx) => stageMessage(tx, h.owner.businessId, ids(), msg, 'test', clock.now(), null, h.app.services.config.credentialsKey));
  wa.failNext(1);
  assert.equal(await deliverOutboxRecord(store, h.app.senders, silentLogger, path, () => Date.now()), 'pending', 'a 500 is retried later');
  assert.equal(await deliverOutboxRecord(store, h.app.senders, silentLogger, path, () => Date.now()), 'delivered');
  assert.equal(await deliverOutboxRecord(store, h.app.senders, silentLogger, path, () => Date.now()), 'delivered');
  assert.equal(wa.accepted.length, 1, 'a delivered record is not sent again');
  assert.equal(wa.accepted[0].to, '972501234567');
  assert.deepEqual(wa.accepted[0].template, {
    name: 'payment_request',
    language: { code: 'he' },
    components: [
      { type: 'body', parameters: [{ type: 'text', text: 'Studio Dana' }, { type: 'text', text: '₪1,200.00' }] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'p/abc123' }] },
    ],
  });
  assert.equal((await store.get(path))!.data.providerId, 'wamid.1');

  const badToken = await createHarness({ env: { WHATSAPP_BASE_URL: wa.baseUrl, WHATSAPP_TOKEN: 'wrong', WHATSAPP_PHONE_NUMBER_ID: '1055' } });
  cleanups.push(() => badToken.close());
  const p2 = await badToken.app.services.store.runTransaction(async (tx) => stageMessage(tx, badToken.owner.businessId, 'm2', msg, 'test', Date.now(), null, badToken.app.services.config.credentialsKey));
  // A wrong token is ours to fix: retried, not a refusal of the message.
  assert.equal(await deliverOutboxRecord(badToken.app.services.store, badToken.app.senders, silentLogger, p2, () => Date.now()), 'pending');
  assert.match(String((await badToken.app.services.store.get(p2))!.data.lastError), /401/);
  // A number the Cloud API refuses is final.
  const p3 = await store.runTransaction(async (tx) => stageMessage(tx, h.owner.businessId, ids(), { ...msg, to: '+12' }, 'test', clock.now(), null, h.app.services.config.credentialsKey));
  assert.equal(await deliverOutboxRecord(store, h.app.senders, silentLogger, p3, () => Date.now()), 'failed');
  assert.match(String((await store.get(p3))!.data.lastError), /refused \(400\): to must be a phone number/);
});

// The sweep's queries (and their composite indexes) on each engine.
for (const engine of engines) {
  describe(`the sweep on ${engine.name}`, () => {
    test('the sweeper re-enqueues pending records that were never enqueued', { skip: engine.skip }, async () => {
      const smtp = await startSmtp();
      let now = Date.now();
      const h = await createHarness({ env: { ...(await engine.env()), SMTP_URL: smtp.url }, overrides: { clock: { now: () => now } } });
      cleanups.push(() => smtp.close(), () => h.close());
      const { store } = h.app.services;
      const path = await store.runTransaction(async (tx) =>
        stageMessage(tx, h.owner.businessId, 'lost1', { channel: 'email', to: 'lost@example.com', subject: 's', text: 't' }, 'test', now, null, h.app.services.config.credentialsKey),
      );
      assert.equal(path, outboxPath(h.owner.businessId, 'lost1'));
      assert.equal(await sweepOutbox(h.app.services), 0, 'too fresh to be lost');
      now += 16 * 60_000;
      assert.equal(await sweepOutbox(h.app.services), 1);
      await h.app.queue!.drain();
      await smtp.waitFor(1);
      assert.equal((await store.get(path))!.data.status, 'delivered');
      assert.equal(await sweepOutbox(h.app.services), 0);
    });

    test('a message pending from before the retry schedule (no nextAttemptAtMs) whose task died is still found and sent once', { skip: engine.skip }, async () => {
      const smtp = await startSmtp();
      let now = Date.now();
      const h = await createHarness({ env: { ...(await engine.env()), SMTP_URL: smtp.url }, overrides: { clock: { now: () => now } } });
      cleanups.push(() => smtp.close(), () => h.close());
      const { store } = h.app.services;
      const path = await store.runTransaction(async (tx) =>
        stageMessage(tx, h.owner.businessId, 'legacy1', { channel: 'email', to: 'legacy@example.com', subject: 's', text: 't' }, 'test', now, null, h.app.services.config.credentialsKey),
      );
      // As an earlier version left it: no next-attempt time, and its task gone.
      await store.update(path, { nextAttemptAtMs: DELETE_FIELD });
      for (const t of await store.query({ collection: '_tasks', where: [['state', '==', 'queued']] })) await store.update(t.path, { state: 'dead' });
      now += 16 * 60_000;
      assert.equal(await sweepOutbox(h.app.services), 1, 'the legacy record is re-queued');
      await h.app.queue!.drain();
      await smtp.waitFor(1);
      assert.equal((await store.get(path))!.data.status, 'delivered');
      now += 16 * 60_000;
      assert.equal(await sweepOutbox(h.app.services), 0, 'and only once');
      assert.equal(smtp.mails.length, 1);
    });
  });
}

test('an SMTP outage longer than the retry budget: every message ends not sent (undelivered), none pending; it is visible', async () => {
  let now = Date.now();
  const smtp = await startSmtp();
  const port = new URL(smtp.url).port;
  await smtp.close();
  const h = await createHarness({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, OUTBOX_MAX_ATTEMPTS: '3', SMTP_TIMEOUT_MS: '2000' }, overrides: { clock: { now: () => now } } });
  cleanups.push(() => h.close());
  const { store } = h.app.services;
  for (let i = 0; i < 4; i++) await h.call('inviteMember', { email: `down${i}@example.com`, role: 'user' });
  const p = await h.call('createPayment', { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'Dana', supplierEmail: 'dana@example.com' });
  // The outage outlasts three attempts (and their backoff).
  for (let i = 0; i < 6; i++) {
    await h.app.queue!.drain();
    now += 20 * 60_000;
  }
  let records = await outboxDocs(h);
  assert.equal(records.length, 5);
  assert.ok(records.every((r) => r.status === 'undelivered'), JSON.stringify(records.map((r) => [r.status, r.attempts])));
  assert.ok(records.every((r) => r.attempts === 3 && r.lastError));
  // The business sees it: on the payment and in the activity.
  const view = await h.call('paymentGet', { paymentId: p.id });
  assert.deepEqual(view.messages.map((m: any) => [m.channel, m.status, m.attempts]), [['email', 'undelivered', 3]]);
  assert.match(view.messages[0].lastError, /ECONNREFUSED|connect/i);
  const activity = await h.call('listActivity');
  assert.equal(activity.items.filter((r: any) => r.operation === 'messageFailed').length, 5);

  // A message staged while SMTP is down whose task died (e.g. a crash) is re-queued by the sweep with a fresh task id.
  const { SMTPServer } = await import('smtp-server');
  let received = 0;
  const server = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false, onData(stream, _s, cb) { stream.resume(); stream.on('end', () => { received++; cb(); }); } });
  await new Promise<void>((r) => server.listen(Number(port), '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(() => r())));
  await h.call('inviteMember', { email: 'late@example.com', role: 'user' });
  const tasks = await store.query({ collection: '_tasks', where: [['state', '==', 'queued']] });
  for (const t of tasks) await store.update(t.path, { state: 'dead' });
  now += 16 * 60_000;
  assert.equal(await h.app.queue!.drain(), 0);
  assert.equal(await sweepOutbox(h.app.services), 1, 'the stuck record is re-queued');
  await h.app.queue!.drain();
  records = await outboxDocs(h);
  assert.deepEqual(records.filter((r) => r.status === 'pending'), []);
  assert.equal(records.find((r) => r.to === 'late@example.com').status, 'delivered');
  assert.equal(received, 1);
});

test('delivered records keep no working capability link: the invite token is nowhere in the store', async () => {
  const smtp = await startSmtp();
  const h = await createHarness({ env: { SMTP_URL: smtp.url } });
  cleanups.push(() => smtp.close(), () => h.close());
  await h.call('inviteMember', { email: 'tok@example.com', role: 'user' });
  await h.app.queue!.drain();
  const [mail] = await smtp.waitFor(1);
  const token = /\/invite\/([A-Za-z0-9_-]{43})/.exec(mailText(mail.raw))?.[1];
  assert.ok(token, 'the email carried the link');
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(`${h.config.dataDir}/store.sqlite`, { readOnly: true });
  const hits = db.prepare('SELECT path FROM docs WHERE data LIKE ?').all(`%${token}%`);
  db.close();
  assert.deepEqual(hits, [], 'no document holds the token');
  const [rec] = await outboxDocs(h);
  assert.equal(rec.status, 'delivered');
  assert.match(rec.message.text, /link removed after delivery/);
});

test('an SMTP server that accepts the connection and then stalls costs one bounded attempt, not a stuck delivery', async () => {
  const { createServer } = await import('node:net');
  const sockets: import('node:net').Socket[] = [];
  // Accepts TCP and never sends the SMTP greeting.
  const silent = createServer((s) => void sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => { for (const s of sockets) s.destroy(); silent.close(() => r()); }));
  const port = (silent.address() as import('node:net').AddressInfo).port;
  const h = await createHarness({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '300' } });
  cleanups.push(() => h.close());
  await h.call('inviteMember', { email: 'stall@example.com', role: 'user' });
  await h.app.queue!.drain();
  const [rec] = await outboxDocs(h);
  assert.equal(rec.status, 'pending', 'retried later, not given up');
  assert.equal(rec.attempts, 1);
  assert.match(rec.lastError, /timeout|greeting/i);
});

test('local deliveries run side by side: a slow SMTP conversation does not hold the others back', async () => {
  const { SMTPServer } = await import('smtp-server');
  let inFlight = 0;
  let most = 0;
  const waiting: (() => void)[] = [];
  // Each message is answered only once a second one is in flight too (or after 5 s, so a serial queue fails rather than hangs).
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _s, cb) {
      stream.resume();
      stream.on('end', () => {
        inFlight++;
        most = Math.max(most, inFlight);
        const done = () => { inFlight--; cb(); };
        if (inFlight >= 2) { waiting.splice(0).forEach((w) => w()); done(); }
        else { const t = setTimeout(() => { waiting.splice(waiting.indexOf(release), 1); done(); }, 5000); const release = () => { clearTimeout(t); done(); }; waiting.push(release); }
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(() => r())));
  const port = (server.server.address() as import('node:net').AddressInfo).port;
  const h = await createHarness({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, LOCAL_QUEUE_CONCURRENCY: '4' } });
  cleanups.push(() => h.close());
  for (let i = 0; i < 4; i++) await h.call('inviteMember', { email: `side${i}@example.com`, role: 'user' });
  await h.app.queue!.drain();
  assert.ok(most >= 2, `at most ${most} delivery in flight at once`);
  assert.deepEqual((await outboxDocs(h)).map((r) => r.status), ['delivered', 'delivered', 'delivered', 'delivered']);
});

test('the supplier link is removed from the delivered email record; only the payment keeps it', async () => {
  const smtp = await startSmtp();
  const h = await createHarness({ env: { SMTP_URL: smtp.url } });
  cleanups.push(() => smtp.close(), () => h.close());
  const p = await h.call('createPayment', { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'Dana', supplierEmail: 'dana@example.com' });
  await h.app.queue!.drain();
  const [mail] = await smtp.waitFor(1);
  const { linkToken } = (await h.app.services.store.get(`businesses/${h.owner.businessId}/payments/${p.id}`))!.data as { linkToken: string };
  assert.ok(mailText(mail.raw).includes(linkToken), 'the email carried the supplier link');
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(`${h.config.dataDir}/store.sqlite`, { readOnly: true });
  const hits = db.prepare('SELECT path FROM docs WHERE data LIKE ?').all(`%${linkToken}%`).map((r) => r.path);
  db.close();
  assert.deepEqual(hits, [`businesses/${h.owner.businessId}/payments/${p.id}`]);
});
