import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { engines } from '../../engines.ts';
import { get, post } from '../../http.ts';
import { mailText } from '../../fakes/smtp.ts';
import { runReminders } from '../../../functions/src/domain/reminders/reminders.ts';
import { paymentsPath, type PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';
import type { OutboxRecord } from '../../../functions/src/core/outbox.ts';
import type { Harness, TestUser } from '../../harness.ts';
import { recurringEnv, type RecurringEnv } from '../../operations/recurring/helpers.ts';

/**
 * Reminders and owner due notices (issue 39 §2) with a controllable clock, on SQLite and Firestore, through the job
 * as the scheduler runs it, with the real SMTP test server and the fake WhatsApp Cloud API. Israel is UTC+2 in these
 * months: 06:00Z is 08:00 there, 05:00Z is 07:00.
 */
for (const engine of engines) {
  describe(`reminders on ${engine.name}`, { skip: engine.skip }, () => {
    let env: RecurringEnv;
    let h: Harness;
    before(async () => {
      env = await recurringEnv(await engine.env());
      h = env.h;
    });
    after(() => env.close());
    const job = () => runReminders(h.app.services);
    const outboxOf = async (b: TestUser, ref?: string) =>
      (await h.app.services.store.query({ collection: `businesses/${b.businessId}/outbox`, ...(ref ? { where: [['ref', '==', ref]] } : {}) })).map((d) => d.data as unknown as OutboxRecord);
    /** Every email the SMTP server received for `to`, decoded. */
    const mailsTo = async (to: string) => {
      await h.app.queue!.drain();
      return env.smtp.mails.filter((m) => m.to.includes(to)).map((m) => mailText(m.raw));
    };
    const wasTo = async (phone: string) => {
      await h.app.queue!.drain();
      return env.wa.accepted.filter((m) => m.to === phone);
    };
    const business = async () => {
      const owner = await h.newBusiness('מאפיית הגליל');
      return owner;
    };

    test('reminders on day 3 and day 7, on the channel and in the language, once even when the job runs twice and at once', async () => {
      env.at('2026-11-05T08:00:00Z');
      const b = await business();
      const wa = await h.call('createPayment', { supplierName: 'Dana', supplierPhone: '0521230001', amountAgorot: 50_000, vatIncluded: true, description: 'Shelves' }, b);
      const em = await h.call('createPayment', { supplierName: 'Acme Inc', supplierEmail: 'acme@example.com', amountAgorot: 90_000, currency: 'USD', vatIncluded: false, noVat: true, description: 'Design' }, b);
      assert.deepEqual([wa.channel, em.channel], ['wa', 'em']);
      assert.deepEqual((await h.call('paymentGet', { paymentId: wa.id }, b)).reminders, { sent: [], next: '2026-11-08' });
      // Day 2, and day 3 before 08:00 Israel: nothing yet.
      env.at('2026-11-07T10:00:00Z');
      await job();
      env.at('2026-11-08T05:30:00Z');
      await job();
      assert.equal((await outboxOf(b, wa.id)).length, 1, 'only the request');
      // Day 3 at 08:30 Israel: two runs at once, then another.
      env.at('2026-11-08T06:30:00Z');
      await Promise.all([job(), job()]);
      await job();
      const waOut = await outboxOf(b, wa.id);
      assert.equal(waOut.length, 2, 'the request and one reminder');
      assert.ok(waOut.some((m) => m.id === `rem_${wa.id}_3` && m.channel === 'whatsapp'));
      const emOut = await outboxOf(b, em.id);
      assert.deepEqual(emOut.map((m) => m.channel), ['email', 'email']);
      const waSent = await wasTo('972521230001');
      assert.equal(waSent.length, 2, 'the request and its reminder by WhatsApp');
      assert.equal(waSent[1]!.template.name, 'payment_request');
      const link = (await h.call('paymentGet', { paymentId: em.id }, b)).link as string;
      const mails = await mailsTo('acme@example.com');
      assert.equal(mails.length, 2);
      assert.match(mails[1]!, /Reminder: .* is waiting for your payout details/);
      assert.match(mails[1]!, /sent to you 3 days ago/);
      assert.ok(mails[1]!.includes(link), 'the same link');
      const view = await h.call('paymentGet', { paymentId: wa.id }, b);
      assert.deepEqual(view.reminders.sent.map((r: any) => r.step), [3]);
      assert.equal(view.reminders.next, '2026-11-12');
      assert.equal(view.messages.length, 2, "the reminder is in the payment's messages");
      // Day 7: the second step, once.
      env.at('2026-11-12T09:00:00Z');
      await job();
      await job();
      assert.equal((await outboxOf(b, wa.id)).length, 3);
      assert.equal((await mailsTo('acme@example.com')).length, 3);
      const after7 = await h.call('paymentGet', { paymentId: wa.id }, b);
      assert.deepEqual([after7.reminders.sent.map((r: any) => r.step), after7.reminders.next], [[3, 7], null]);
      env.at('2026-11-20T09:00:00Z');
      await job();
      assert.equal((await outboxOf(b, wa.id)).length, 3, 'no step after the last');
      // In the activity log as a system row.
      const rows = (await h.call('listActivity', { kind: 'payments' }, b)).items.filter((r: any) => r.action === 'paymentReminder');
      assert.equal(rows.length, 4);
      assert.ok(rows.some((r: any) => r.params.supplier === 'Acme Inc' && r.params.step === 7 && r.params.channel === 'em'));
    });

    test('a Hebrew supplier by email gets the Hebrew reminder; a server down past both steps sends one, the latest', async () => {
      env.at('2026-12-01T08:00:00Z');
      const b = await business();
      const p = await h.call('createPayment', { supplierName: 'יוסי', supplierEmail: 'yossi@example.com', amountAgorot: 10_000, vatIncluded: true, description: 'ניקיון' }, b);
      env.at('2026-12-09T07:00:00Z');
      await job();
      const mails = await mailsTo('yossi@example.com');
      assert.equal(mails.length, 2);
      assert.match(mails[1]!, /תזכורת/);
      assert.match(mails[1]!, /לפני 7 ימים/);
      assert.deepEqual((await h.call('paymentGet', { paymentId: p.id }, b)).reminders.sent.map((r: any) => r.step), [7]);
    });

    test('reminders stop when the supplier fills the link on the public page', async () => {
      env.at('2027-01-03T08:00:00Z');
      const b = await business();
      const p = await h.call('createPayment', { supplierName: 'Rina', supplierPhone: '0521230002', amountAgorot: 20_000, vatIncluded: true, description: 'Paint' }, b);
      env.at('2027-01-06T07:00:00Z');
      await job();
      assert.equal((await outboxOf(b, p.id)).length, 2, 'the day-3 reminder');
      // The supplier fills the form on the link page (the pages' HTTP handler).
      const form = new FormData();
      for (const [k, v] of Object.entries({ submissionId: 'R'.repeat(22), action: 'payout', method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Rina' })) form.append(k, v);
      const req = new Request('http://x/', { method: 'POST', body: form });
      const r = await h.http({ method: 'POST', path: new URL(p.link).pathname, query: '', headers: { 'content-type': req.headers.get('content-type')! }, body: Buffer.from(await req.arrayBuffer()) });
      assert.equal(r.status, 303, String(r.body));
      const filled = await h.call('paymentGet', { paymentId: p.id }, b);
      assert.notEqual(filled.status, 'sent');
      assert.equal(filled.reminders.next, null);
      assert.deepEqual(filled.reminders.sent.map((x: any) => x.step), [3], 'what was sent stays shown');
      env.at('2027-01-10T07:00:00Z');
      await job();
      env.at('2027-01-12T07:00:00Z');
      await job();
      assert.equal((await outboxOf(b, p.id)).filter((m) => m.id.startsWith('rem_')).length, 1, 'no day-7 reminder');
    });

    test('none after cancel or paid; reminderDays [] is off; another list of days is followed', async () => {
      env.at('2027-02-01T08:00:00Z');
      const b = await business();
      const canceled = await h.call('createPayment', { supplierName: 'C', supplierPhone: '0521230003', amountAgorot: 1_000, vatIncluded: true, description: 'x' }, b);
      const paid = await h.call('createPayment', { supplierName: 'P', supplierPhone: '0521230004', amountAgorot: 1_000, vatIncluded: true, description: 'x' }, b);
      const link = await h.call('createPayment', { supplierName: 'L', supplierPhone: '0521230005', amountAgorot: 1_000, vatIncluded: true, description: 'x', channel: 'link' }, b);
      await h.call('cancelPayment', { paymentId: canceled.id }, b);
      await h.call('markPaid', { paymentId: paid.id }, b);
      assert.equal((await h.call('paymentGet', { paymentId: link.id }, b)).reminders.next, null, 'a link the business shares itself gets no reminders');
      env.at('2027-02-04T07:00:00Z');
      await job();
      env.at('2027-02-08T07:00:00Z');
      await job();
      for (const p of [canceled, paid, link]) assert.equal((await outboxOf(b, p.id)).filter((m) => m.id.startsWith('rem_')).length, 0, p.supplierName);

      const off = await business();
      assert.deepEqual((await h.call('updateBusiness', { reminderDays: [] }, off)).reminderDays, []);
      assert.deepEqual((await h.call('getBusiness', {}, off)).reminderDays, []);
      const quiet = await h.call('createPayment', { supplierName: 'Q', supplierPhone: '0521230006', amountAgorot: 1_000, vatIncluded: true, description: 'x' }, off);
      assert.equal((await h.call('paymentGet', { paymentId: quiet.id }, off)).reminders.next, null);
      const custom = await business();
      await h.call('updateBusiness', { reminderDays: [1, 2] }, custom);
      const soon = await h.call('createPayment', { supplierName: 'S', supplierPhone: '0521230007', amountAgorot: 1_000, vatIncluded: true, description: 'x' }, custom);
      assert.equal((await h.call('paymentGet', { paymentId: soon.id }, custom)).reminders.next, '2027-02-09');
      env.at('2027-02-09T07:00:00Z');
      await job();
      env.at('2027-02-20T07:00:00Z');
      await job();
      assert.equal((await outboxOf(off, quiet.id)).length, 1, 'reminders off: only the request');
      assert.deepEqual((await h.call('paymentGet', { paymentId: soon.id }, custom)).reminders.sent.map((r: any) => r.step), [1], 'day 1 went; day 2 passed more than 7 days ago (the job did not run): skipped');
    });

    test('the 07:00 digest lists due and overdue payments and pending approvals, to each admin, once a day', async () => {
      env.at('2027-03-10T08:00:00Z');
      const b = await business();
      const admin = await h.addMember('admin', b.businessId);
      const user = await h.addMember('user', b.businessId);
      const mk = (supplierName: string, dueDate: string | null, extra: Record<string, unknown> = {}) =>
        h.call('createPayment', { supplierName, supplierPhone: '0521230010', amountAgorot: 11_700, vatIncluded: true, description: 'x', channel: 'link', ...(dueDate ? { dueDate } : {}), ...extra }, b);
      const overdue = await mk('Overdue Ltd', '2027-03-09');
      const today = await mk('Today Ltd', '2027-03-11');
      await mk('Tomorrow Ltd', '2027-03-12');
      const wasPaid = await mk('Paid Ltd', '2027-03-01');
      await h.call('markPaid', { paymentId: wasPaid.id }, b);
      await h.call('approvalPolicySet', { thresholdAgorot: 0, approvalsRequired: 1 }, b);
      const pending = await mk('Approve Me Ltd', null);
      const at = new Date().toISOString();
      await h.app.services.store.update(paymentsPath(b.businessId, pending.id), { status: 'ready', payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'X' }, supplierSubmittedAt: at, readyAt: at });
      // 06:30 in Israel on the 11th: not yet.
      env.at('2027-03-11T04:30:00Z');
      await job();
      assert.equal((await mailsTo(b.email)).length, 0);
      // 07:10: the digest, to both admins, not to the user.
      env.at('2027-03-11T05:10:00Z');
      await Promise.all([job(), job()]);
      await job();
      const [mine, theirs, users] = [await mailsTo(b.email), await mailsTo(admin.email), await mailsTo(user.email)];
      assert.deepEqual([mine.length, theirs.length, users.length], [1, 1, 0]);
      const text = mine[0]!;
      for (const name of ['Overdue Ltd', 'Today Ltd', 'Approve Me Ltd']) assert.ok(text.includes(name), name);
      for (const name of ['Tomorrow Ltd', 'Paid Ltd']) assert.ok(!text.includes(name), name);
      assert.match(text, /באיחור/);
      assert.match(text, /ממתין לאישור/);
      assert.ok(text.includes(`https://app.example.com/payments/${overdue.id}`));
      assert.ok(text.includes(`https://app.example.com/payments/${today.id}`));
      // Later the same day: nothing more. The next morning: the day's own digest.
      env.at('2027-03-11T15:00:00Z');
      await job();
      assert.equal((await mailsTo(b.email)).length, 1);
      env.at('2027-03-12T05:05:00Z');
      await job();
      const next = await mailsTo(b.email);
      assert.equal(next.length, 2);
      assert.ok(next[1]!.includes('Tomorrow Ltd'), 'due today now');
    });

    test('the digest says nothing on a day with nothing due, even once something falls due later that day; notifyDueEmail off sends none', async () => {
      env.at('2027-04-01T08:00:00Z');
      const b = await business();
      await h.call('createPayment', { supplierName: 'Later Ltd', supplierPhone: '0521230011', amountAgorot: 1_000, vatIncluded: true, description: 'x', channel: 'link', dueDate: '2027-04-20' }, b);
      env.at('2027-04-02T05:30:00Z');
      await job();
      assert.equal((await mailsTo(b.email)).length, 0, 'nothing due: no email');
      await h.call('createPayment', { supplierName: 'Same Day Ltd', supplierPhone: '0521230012', amountAgorot: 1_000, vatIncluded: true, description: 'x', channel: 'link', dueDate: '2027-04-02' }, b);
      env.at('2027-04-02T09:00:00Z');
      await job();
      assert.equal((await mailsTo(b.email)).length, 0, "the morning's digest was that day's");

      const off = await business();
      assert.equal((await h.call('getBusiness', {}, off)).notifyDueEmail, true, 'on by default');
      await h.call('updateBusiness', { notifyDueEmail: false }, off);
      await h.call('createPayment', { supplierName: 'Due Ltd', supplierPhone: '0521230013', amountAgorot: 1_000, vatIncluded: true, description: 'x', channel: 'link', dueDate: '2027-04-02' }, off);
      env.at('2027-04-03T05:30:00Z');
      await job();
      assert.equal((await mailsTo(off.email)).length, 0);
      assert.equal((await mailsTo(b.email)).length, 1, 'the other business gets the next morning its digest of the overdue one');
    });

    test("a run's pay date: one email to each admin while the run is open", async () => {
      env.at('2027-05-03T08:00:00Z');
      const b = await business();
      await h.call('updateBusiness', { masavInstitutionId: '12345678', masavSenderId: '54321' }, b);
      const p = await h.call('createPayment', { supplierName: 'Run Ltd', supplierEmail: 'run@example.com', amountAgorot: 25_000, vatIncluded: true, description: 'x', channel: 'link' }, b);
      const at = new Date().toISOString();
      await h.app.services.store.update(paymentsPath(b.businessId, p.id), { status: 'ready', payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Run Ltd' }, supplierSubmittedAt: at, readyAt: at });
      const run = await h.call('payRunCreate', { paymentIds: [p.id], payDate: '2027-05-05', note: 'May' }, b);
      const admin = await h.addMember('admin', b.businessId);
      env.at('2027-05-04T06:00:00Z');
      await job();
      const runMails = async (to: string) => (await mailsTo(to)).filter((t) => t.includes(`/pay/runs/${run.id}`));
      assert.equal((await runMails(b.email)).length, 0, 'the day before: nothing');
      env.at('2027-05-05T05:20:00Z');
      await Promise.all([job(), job()]);
      env.at('2027-05-05T12:00:00Z');
      await job();
      assert.equal((await runMails(b.email)).length, 1);
      assert.equal((await runMails(admin.email)).length, 1);
      assert.match((await runMails(b.email))[0]!, /עדיין פתוחה/);
      // A run marked paid or canceled is not news: another open run canceled before its day gets none.
      const q = await h.call('createPayment', { supplierName: 'Run Two', supplierEmail: 'run2@example.com', amountAgorot: 5_000, vatIncluded: true, description: 'x', channel: 'link' }, b);
      await h.app.services.store.update(paymentsPath(b.businessId, q.id), { status: 'ready', payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678902', bankBeneficiary: 'Run Two' }, supplierSubmittedAt: at, readyAt: at });
      const second = await h.call('payRunCreate', { paymentIds: [q.id], payDate: '2027-05-06' }, b);
      await h.call('payRunCancel', { runId: second.id }, b);
      env.at('2027-05-06T06:00:00Z');
      await job();
      assert.equal((await mailsTo(b.email)).filter((t) => t.includes(`/pay/runs/${second.id}`)).length, 0);
      assert.equal((await runMails(b.email)).length, 1, 'the first run still once');
    });

    test('updateBusiness checks reminderDays, naming the field; the settings over HTTP and MCP', async () => {
      const b = await business();
      const refused = async (reminderDays: unknown, reason: string) => {
        const e = await h.call('updateBusiness', { reminderDays }, b).then(() => null, (x) => x);
        assert.ok(e, JSON.stringify(reminderDays));
        assert.equal(e.code, 'invalid-argument');
        assert.match(e.details.field, /^reminderDays/);
        assert.equal(e.details.reason, reason, JSON.stringify(reminderDays));
      };
      await refused([7, 3], 'reminderDaysOrder');
      await refused([3, 3], 'reminderDaysOrder');
      await refused([0], 'tooSmall');
      await refused([61], 'tooLarge');
      await refused([1, 2, 3, 4, 5, 6], 'tooMany');
      await refused([1.5], 'notInteger');
      assert.deepEqual((await h.call('getBusiness', {}, b)).reminderDays, [3, 7], 'unchanged, the default');

      const origin = await h.listen();
      const ok = await post(origin, '/v1/updateBusiness', { reminderDays: [2, 5, 10], notifyDueEmail: false }, b.apiKey);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const bad = await post(origin, '/v1/updateBusiness', { reminderDays: [5, 2] }, b.apiKey);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.details.field, 'reminderDays');
      const got = await get(origin, '/v1/getBusiness', b.apiKey);
      assert.deepEqual([got.body.result.reminderDays, got.body.result.notifyDueEmail], [[2, 5, 10], false]);
      const client = new Client({ name: 'reminders-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp?toolsets=all`), { requestInit: { headers: { authorization: `Bearer ${b.apiKey}` } } }));
      try {
        const set = await client.callTool({ name: 'updateBusiness', arguments: { reminderDays: [4], notifyDueEmail: true } });
        assert.notEqual(set.isError, true, JSON.stringify(set));
        const read = await client.callTool({ name: 'getBusiness', arguments: {} });
        assert.deepEqual([(read.structuredContent as any).reminderDays, (read.structuredContent as any).notifyDueEmail], [[4], true]);
        const wrong = await client.callTool({ name: 'updateBusiness', arguments: { reminderDays: [4, 4] } });
        assert.equal(wrong.isError, true);
        assert.match(JSON.stringify(wrong.content), /reminderDays/);
      } finally {
        await client.close();
      }
    });

    test('the stored payment keeps its reminder marks', async () => {
      // A sanity check of the record the job writes (one mark per step), from the first test's kind of payment.
      env.at('2027-06-01T08:00:00Z');
      const b = await business();
      const p = await h.call('createPayment', { supplierName: 'Mark', supplierPhone: '0521230020', amountAgorot: 1_000, vatIncluded: true, description: 'x' }, b);
      env.at('2027-06-04T08:00:00Z');
      await job();
      await job();
      const rec = (await h.app.services.store.get(paymentsPath(b.businessId, p.id)))!.data as unknown as PaymentRecord & { reminders: { step: number; at: string }[] };
      assert.deepEqual(rec.reminders.map((r) => r.step), [3]);
      assert.equal(rec.reminders[0]!.at, '2027-06-04T08:00:00.000Z');
    });
  });
}
