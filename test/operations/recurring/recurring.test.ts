import { test, before, after, afterEach, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { engines } from '../../engines.ts';
import { get, post } from '../../http.ts';
import { runRecurring } from '../../../functions/src/domain/recurring/recurring.ts';
import { suppliersPath } from '../../../functions/src/domain/payments/suppliers.ts';
import { supplierKeyOf } from '../../../functions/src/domain/contacts.ts';
import type { Harness } from '../../harness.ts';
import { outboxOf, paymentsOf, recurringEnv, stored, template, type RecurringEnv } from './helpers.ts';

/** Recurring payment requests (issue 39 §1) with a controllable clock, on SQLite and Firestore. */
for (const engine of engines) {
  describe(`recurring payment requests on ${engine.name}`, { skip: engine.skip }, () => {
    let env: RecurringEnv;
    let h: Harness;
    before(async () => {
      env = await recurringEnv(await engine.env());
      h = env.h;
    });
    after(() => env.close());
    // Each case's schedules end with it: a later case's job (its clock years on) would otherwise catch them all up.
    afterEach(async () => {
      for (const r of (await h.call('recurringList', {})).items) await h.call('recurringDelete', { id: r.id });
    });
    const job = () => runRecurring(h.app.services);
    const create = (input: Record<string, unknown>, user = h.owner) => h.call('recurringCreate', { cadence: 'monthly', startDate: '2026-11-05', ...input }, user);

    test('a schedule due today makes its first request at once: {month} in Hebrew, due dueInDays on, sent by WhatsApp once', async () => {
      env.at('2026-11-05T08:00:00Z');
      const s = await create({ template: template({ supplierPhone: '0521110001' }), dueInDays: 10 });
      assert.equal(s.dayOfMonth, 5, "defaults to today's day in Israel");
      assert.deepEqual([s.paused, s.pausedReason, s.nextAt], [false, null, '2026-12-05']);
      assert.equal(s.payments.length, 1);
      assert.equal(s.payments[0].period, '2026-11');
      const p = await stored(h, s.payments[0].paymentId);
      assert.ok(p);
      assert.deepEqual([p.description, p.dueDate, p.amountAgorot, p.status, p.channel, p.recurringPeriod], ['ריטיינר נובמבר 2026', '2026-11-15', 350_000, 'sent', 'wa', '2026-11']);
      const view = await h.call('paymentGet', { paymentId: p.id });
      assert.equal(view.description, 'ריטיינר נובמבר 2026');
      // The job again the same day: nothing new.
      assert.deepEqual((await job()).created, []);
      assert.equal((await paymentsOf(h, s.id)).length, 1);
      const before = env.wa.accepted.length;
      await h.app.queue!.drain();
      const sent = env.wa.accepted.slice(before).filter((m) => m.to === '972521110001');
      assert.equal(sent.length, 1, 'the request went out once');
      assert.equal((await outboxOf(h, p.id)).length, 1);
      // In the activity log, as a system row of kind recurring.
      const rows = (await h.call('listActivity', { kind: 'recurring' })).items;
      assert.ok(rows.some((r: any) => r.action === 'recurringOccurrence' && r.params.period === '2026-11' && r.params.supplier === 'דנה כהן'));
      assert.ok(rows.some((r: any) => r.action === 'recurringCreate'));
    });

    test('the 28th: a day after the 28th is refused, and the default day is capped at 28', async () => {
      env.at('2026-11-30T08:00:00Z');
      await assert.rejects(create({ template: template(), dayOfMonth: 29, startDate: '2026-11-30' }), (e: any) => e.code === 'invalid-argument' && e.details.field === 'dayOfMonth');
      const s = await create({ template: template({ supplierPhone: '0521110002', channel: 'link' }), startDate: '2026-11-30' });
      assert.equal(s.dayOfMonth, 28);
      assert.equal(s.nextAt, '2026-12-28', "this month's 28th has passed");
      // Through February: every month gets its request on the 28th.
      env.at('2027-03-01T08:00:00Z');
      await job();
      assert.deepEqual((await paymentsOf(h, s.id)).map((p: any) => [p.recurringPeriod, p.description]), [
        ['2026-12', 'ריטיינר דצמבר 2026'],
        ['2027-01', 'ריטיינר ינואר 2027'],
        ['2027-02', 'ריטיינר פברואר 2027'],
      ]);
      assert.equal((await h.call('recurringGet', { id: s.id })).nextAt, '2027-03-28');
    });

    test('a server down for three days makes the missed occurrence with its own period; down three months, three, oldest first', async () => {
      env.at('2027-05-01T08:00:00Z');
      const weekly = await h.call('recurringCreate', { template: template({ supplierPhone: '0521110003', channel: 'link', description: 'ניקיון {period}' }), cadence: 'weekly', weekday: 0, startDate: '2027-05-01', dueInDays: 3 });
      assert.equal(weekly.nextAt, '2027-05-02');
      const monthly = await create({ template: template({ supplierPhone: '0521110004', channel: 'link' }), dayOfMonth: 2, startDate: '2027-05-01', dueInDays: 0 });
      assert.equal(monthly.nextAt, '2027-05-02');
      // Down from Saturday 1 May to Tuesday 4 May (Israel): Sunday's occurrences are made with their own day and period.
      env.at('2027-05-04T06:00:00Z');
      const r = await job();
      assert.equal(r.created.filter((c) => c.scheduleId === weekly.id || c.scheduleId === monthly.id).length, 2);
      const [w] = await paymentsOf(h, weekly.id);
      assert.deepEqual([(w as any).recurringPeriod, w.dueDate], ['2027-05-02', '2027-05-05']);
      assert.match(w.description, /^ניקיון 2.*8 במאי 2027$|^ניקיון 2.*8 מאי 2027$/);
      const [m] = await paymentsOf(h, monthly.id);
      assert.deepEqual([(m as any).recurringPeriod, m.dueDate, m.description], ['2027-05', '2027-05-02', 'ריטיינר מאי 2027']);
      // Down for three months: each missed month, in order, each with its month and due date.
      env.at('2027-08-03T06:00:00Z');
      await job();
      assert.deepEqual((await paymentsOf(h, monthly.id)).map((p: any) => [p.recurringPeriod, p.description, p.dueDate]), [
        ['2027-05', 'ריטיינר מאי 2027', '2027-05-02'],
        ['2027-06', 'ריטיינר יוני 2027', '2027-06-02'],
        ['2027-07', 'ריטיינר יולי 2027', '2027-07-02'],
        ['2027-08', 'ריטיינר אוגוסט 2027', '2027-08-02'],
      ]);
      const view = await h.call('recurringGet', { id: monthly.id });
      assert.deepEqual(view.payments.map((p: any) => p.period), ['2027-08', '2027-07', '2027-06', '2027-05'], 'most recent first');
      assert.equal(view.nextAt, '2027-09-02');
      assert.equal((await paymentsOf(h, weekly.id)).length, 14, 'one a week from 2 May to 1 August');
    });

    test('two job runs at once make each occurrence once', async () => {
      env.at('2028-01-01T08:00:00Z');
      const made: { id: string }[] = [];
      for (let i = 0; i < 3; i++) made.push(await create({ template: template({ supplierPhone: `052111002${i}` }), dayOfMonth: 2, startDate: '2028-01-01' }));
      env.at('2028-04-03T06:00:00Z');
      const [a, b] = await Promise.all([job(), job()]);
      const mine = (r: typeof a) => r.created.filter((c) => made.some((s) => s.id === c.scheduleId));
      assert.equal(mine(a).length + mine(b).length, 12, 'three schedules, four months each, made once between the two runs');
      for (const s of made) {
        const ps = await paymentsOf(h, s.id);
        assert.deepEqual(ps.map((p: any) => p.recurringPeriod), ['2028-01', '2028-02', '2028-03', '2028-04']);
        for (const p of ps) assert.equal((await outboxOf(h, p.id)).length, 1, 'one message staged per request');
      }
    });

    test('a deleted supplier pauses the schedule with a reason and makes nothing; it resumes once the template names a supplier', async () => {
      env.at('2028-06-01T08:00:00Z');
      const s = await create({ template: template({ supplierPhone: '0521110030', channel: 'link' }), dayOfMonth: 3, startDate: '2028-06-01' });
      const key = supplierKeyOf({ phone: '+972521110030', email: null });
      assert.ok(await h.app.services.store.get(suppliersPath(h.owner.businessId, key)), 'the schedule files its supplier');
      await h.app.services.store.delete(suppliersPath(h.owner.businessId, key));
      env.at('2028-06-04T08:00:00Z');
      const r = await job();
      assert.ok(r.paused.includes(s.id));
      assert.equal((await paymentsOf(h, s.id)).length, 0);
      const view = await h.call('recurringGet', { id: s.id });
      assert.deepEqual([view.paused, view.pausedReason, view.nextAt], [true, 'supplierDeleted', null]);
      await assert.rejects(h.call('recurringUpdate', { id: s.id, paused: false }), (e: any) => e.code === 'failed-precondition' && e.details.reason === 'recurringSupplierGone');
      const resumed = await h.call('recurringUpdate', { id: s.id, paused: false, template: { supplierPhone: '0521110031' } });
      assert.deepEqual([resumed.paused, resumed.pausedReason, resumed.nextAt], [false, null, '2028-07-03'], 'goes on from today: June 3 passed while paused');
    });

    test('a merged supplier: the schedule follows the supplier it was merged into', async () => {
      env.at('2028-09-01T08:00:00Z');
      const s = await create({ template: template({ supplierPhone: '0521110040', channel: 'link' }), dayOfMonth: 2, startDate: '2028-09-01' });
      const into = await h.call('createSupplier', { name: 'Into', phone: '0521110041' });
      const from = supplierKeyOf({ phone: '+972521110040', email: null });
      await h.call('supplierMerge', { from, into: into.key });
      env.at('2028-09-02T08:00:00Z');
      await job();
      const [p] = await paymentsOf(h, s.id);
      assert.equal(p.supplierKey, into.key);
      assert.equal((await h.call('recurringGet', { id: s.id })).template.supplierKey, into.key);
    });

    test('an update changes future occurrences only; paused makes nothing; delete keeps the payments made', async () => {
      env.at('2029-01-05T08:00:00Z');
      const s = await create({ template: template({ supplierPhone: '0521110050', channel: 'link', invoiceRequired: true, currency: 'EUR' }), startDate: '2029-01-05' });
      const [first] = await paymentsOf(h, s.id);
      const updated = await h.call('recurringUpdate', { id: s.id, template: { amountAgorot: 400_000, description: 'Retainer {month}' }, dayOfMonth: 20, dueInDays: 7 });
      assert.deepEqual([updated.template.amountAgorot, updated.dayOfMonth, updated.nextAt], [400_000, 20, '2029-02-20'], "January's request is made: the next is February's");
      assert.deepEqual([updated.template.invoiceRequired, updated.template.currency, updated.template.channel], [true, 'EUR', 'link'], 'fields left out keep their values');
      const again = await stored(h, first.id);
      assert.deepEqual([again!.amountAgorot, again!.description, again!.dueDate], [350_000, 'ריטיינר January 2029', null], 'the payment made is as it was (a euro supplier reads English)');
      env.at('2029-02-20T08:00:00Z');
      await job();
      const second = (await paymentsOf(h, s.id))[1];
      assert.deepEqual([second.amountAgorot, second.description, second.dueDate], [400_000, 'Retainer February 2029', '2029-02-27']);
      const paused = await h.call('recurringUpdate', { id: s.id, paused: true });
      assert.deepEqual([paused.paused, paused.pausedReason, paused.nextAt], [true, 'byUser', null]);
      env.at('2029-04-21T08:00:00Z');
      await job();
      assert.equal((await paymentsOf(h, s.id)).length, 2, 'nothing while paused');
      const deleted = await h.call('recurringDelete', { id: s.id });
      assert.equal(deleted.deleted, true);
      await assert.rejects(h.call('recurringGet', { id: s.id }), (e: any) => e.code === 'not-found' && e.details.params.what === 'schedule');
      assert.equal((await h.call('paymentGet', { paymentId: first.id })).id, first.id, 'the payments made stay');
      assert.ok(!(await h.call('recurringList', {})).items.some((r: any) => r.id === s.id));
    });

    test('a period is made once even when the cadence changes away and back the same day', async () => {
      env.at('2029-10-04T08:00:00Z');
      const s = await create({ template: template({ supplierPhone: '0521110080', channel: 'link' }), startDate: '2029-10-04' });
      assert.deepEqual(s.payments.map((p: any) => p.period), ['2029-10']);
      const weekly = await h.call('recurringUpdate', { id: s.id, cadence: 'weekly', weekday: 4 });
      assert.deepEqual([weekly.dayOfMonth, weekly.weekday, weekly.nextAt], [null, 4, '2029-10-04']);
      await job();
      const monthly = await h.call('recurringUpdate', { id: s.id, cadence: 'monthly', dayOfMonth: 4 });
      assert.equal(monthly.nextAt, '2029-10-04');
      await job();
      assert.deepEqual((await paymentsOf(h, s.id)).map((p: any) => p.recurringPeriod), ['2029-09-30', '2029-10'], "October's monthly request is not made twice");
      assert.equal((await h.call('recurringGet', { id: s.id })).nextAt, '2029-11-04');
    });

    test('bad input is invalid-argument naming the field, and nothing is created', async () => {
      env.at('2029-06-01T08:00:00Z');
      const count = (await h.call('recurringList', {})).items.length;
      const cases: [Record<string, unknown>, string, string?][] = [
        [{ template: template(), weekday: 2 }, 'weekday', 'notForCadence'],
        [{ template: template(), cadence: 'weekly', dayOfMonth: 3 }, 'dayOfMonth', 'notForCadence'],
        [{ template: template(), startDate: '2029-02-30' }, 'startDate', 'notARealDate'],
        [{ template: template(), startDate: '2029-06-01', endDate: '2029-05-01' }, 'endDate', 'dateRangeReversed'],
        [{ template: template({ supplierPhone: undefined }) }, 'template.supplierPhone', 'supplierContactRequired'],
        [{ template: template({ amountAgorot: 0 }) }, 'template.amountAgorot', 'amountNotPositive'],
        [{ template: template(), cadence: 'daily' }, 'cadence'],
        [{ template: template(), dueInDays: -1 }, 'dueInDays'],
      ];
      for (const [input, field, reason] of cases) {
        await assert.rejects(create({ startDate: '2029-06-01', ...input }), (e: any) => e.code === 'invalid-argument' && e.details.field === field && (!reason || e.details.reason === reason), field);
      }
      assert.equal((await h.call('recurringList', {})).items.length, count);
    });

    test("another business's schedule is not found; a user (not admin) may create one, as createPayment", async () => {
      env.at('2029-07-01T08:00:00Z');
      const s = await create({ template: template({ channel: 'link' }), dayOfMonth: 9, startDate: '2029-07-01' });
      const other = await h.newBusiness('Other');
      for (const [op, input] of [['recurringGet', { id: s.id }], ['recurringUpdate', { id: s.id, paused: true }], ['recurringDelete', { id: s.id }]] as const) {
        await assert.rejects(h.call(op, input, other), (e: any) => e.code === 'not-found', op);
      }
      assert.equal((await h.call('recurringList', {}, other)).items.length, 0);
      const user = await h.addMember('user');
      const mine = await create({ template: template({ channel: 'link', supplierPhone: '0521110060' }), dayOfMonth: 9, startDate: '2029-07-01' }, user);
      assert.equal(mine.createdBy, user.userId);
    });

    test('through HTTP and MCP', async () => {
      env.at('2029-08-01T08:00:00Z');
      const origin = await h.listen();
      const created = await post(origin, '/v1/recurringCreate', { template: template({ channel: 'link', supplierPhone: '0521110070' }), cadence: 'yearly', month: 3, dayOfMonth: 15, startDate: '2029-08-01' }, h.owner.apiKey);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const id = created.body.result.id;
      assert.equal(created.body.result.nextAt, '2030-03-15');
      const got = await get(origin, `/v1/recurringGet?id=${id}`, h.owner.apiKey);
      assert.equal(got.status, 200, JSON.stringify(got.body));
      const bad = await post(origin, '/v1/recurringCreate', { template: template(), cadence: 'monthly', dayOfMonth: 31, startDate: '2029-08-01' }, h.owner.apiKey);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.details.field, 'dayOfMonth');
      const client = new Client({ name: 'recurring-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp?toolsets=recurring`), { requestInit: { headers: { authorization: `Bearer ${h.owner.apiKey}` } } }));
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        for (const n of ['recurringCreate', 'recurringList', 'recurringGet', 'recurringUpdate', 'recurringDelete']) assert.ok(names.includes(n), n);
        const listed = await client.callTool({ name: 'recurringList', arguments: {} });
        assert.notEqual(listed.isError, true, JSON.stringify(listed));
        assert.ok((listed.structuredContent as any).items.some((r: any) => r.id === id));
        const paused = await client.callTool({ name: 'recurringUpdate', arguments: { id, paused: true } });
        assert.notEqual(paused.isError, true, JSON.stringify(paused));
        assert.equal((paused.structuredContent as any).pausedReason, 'byUser');
      } finally {
        await client.close();
      }
    });
  });
}

test("the daily message cap holds for the job as for createPayment: a request that would pass it waits for the next day's run, keeping its period", async () => {
  const env = await recurringEnv({ QUOTA_MESSAGES: '1' }, '2026-11-05T08:00:00Z');
  try {
    const { h } = env;
    const a = await h.call('recurringCreate', { template: template({ supplierPhone: '0541110001' }), cadence: 'monthly', startDate: '2026-11-05' });
    assert.equal(a.payments.length, 1, 'the first message of the day is within the cap');
    const b = await h.call('recurringCreate', { template: template({ supplierPhone: '0541110002' }), cadence: 'monthly', startDate: '2026-11-05' });
    assert.deepEqual([b.payments.length, b.nextAt], [0, '2026-11-05'], 'the second waits');
    assert.deepEqual((await runRecurring(h.app.services)).created, []);
    env.at('2026-11-06T08:00:00Z');
    const r = await runRecurring(h.app.services);
    assert.deepEqual(r.created.map((c) => [c.scheduleId, c.period]), [[b.id, '2026-11']]);
    assert.equal((await paymentsOf(h, b.id))[0].description, 'ריטיינר נובמבר 2026');
  } finally {
    await env.close();
  }
});
