import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { engines } from '../../engines.ts';
import { runRecurring } from '../../../functions/src/domain/recurring/recurring.ts';
import { sweepOutbox, SWEEP_QUIET_MS } from '../../../functions/src/core/outboxSweep.ts';
import type { Harness } from '../../harness.ts';
import { outboxOf, paymentsOf, recurringEnv, template, type RecurringEnv } from './helpers.ts';

/**
 * Issue 39 §4: kill -9 in the middle of an occurrence. The job runs in a child process on the same store and is
 * SIGKILLed before an occurrence's transaction, or after it committed but before its message was queued; the next
 * run makes exactly one payment per period, and each request's message goes out once.
 */
for (const engine of engines) {
  describe(`recurring job killed mid-occurrence on ${engine.name}`, { skip: engine.skip }, () => {
    let env: RecurringEnv;
    let h: Harness;
    before(async () => {
      env = await recurringEnv(await engine.env(), '2030-01-01T08:00:00Z');
      h = env.h;
    });
    after(() => env.close());

    /** Runs the job in a child with the clock at `iso`, waits until it stalls at `stage`, and kills it with SIGKILL. */
    async function killAt(iso: string, stage: 'before' | 'committed', scheduleId: string, t: { after(fn: () => void): void }): Promise<string> {
      const worker = fileURLToPath(new URL('./recurringWorker.ts', import.meta.url));
      const child = spawn(process.execPath, [worker, h.config.dataDir, JSON.stringify(env.env), String(Date.parse(iso)), stage, scheduleId], { stdio: ['ignore', 'pipe', 'inherit'] });
      t.after(() => void child.kill('SIGKILL'));
      const exited = new Promise<number | null>((r) => child.once('exit', (_code, signal) => r(signal === 'SIGKILL' ? 9 : _code)));
      const paymentId = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`the worker never stalled: ${out}`)), 60_000);
        child.stdout!.on('data', (c) => {
          out += String(c);
          const m = /STALL (\S+)\n/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          } else if (out.includes('DONE')) reject(new Error('the worker finished without stalling'));
        });
      });
      child.kill('SIGKILL');
      assert.equal(await exited, 9);
      return paymentId;
    }
    const sentTo = (phone: string) => env.wa.accepted.filter((m) => m.to === phone).length;

    test('killed after the commit, before its message was queued: one payment, the message sent once', { timeout: 120_000 }, async (t) => {
      const s = await h.call('recurringCreate', { template: template({ supplierPhone: '0531230001' }), cadence: 'monthly', dayOfMonth: 2, startDate: '2030-01-01' });
      assert.equal(s.nextAt, '2030-01-02');
      const paymentId = await killAt('2030-01-02T08:00:00Z', 'committed', s.id, t);
      // The payment, the schedule's advance and the pending message committed together.
      env.at('2030-01-02T08:05:00Z');
      assert.deepEqual((await paymentsOf(h, s.id)).map((p: any) => [p.id, p.recurringPeriod]), [[paymentId, '2030-01']]);
      assert.equal((await h.call('recurringGet', { id: s.id })).nextAt, '2030-02-02');
      const [msg] = await outboxOf(h, paymentId);
      assert.equal(msg.status, 'pending');
      // The job again: nothing new.
      const again = await runRecurring(h.app.services);
      assert.deepEqual(again.created, []);
      assert.equal((await paymentsOf(h, s.id)).length, 1);
      await h.app.queue!.drain();
      assert.equal(sentTo('972531230001'), 0, 'no task was queued before the kill');
      // The outbox sweep takes up the message whose task was lost; sweeping again sends nothing more.
      env.at(new Date(Date.parse('2030-01-02T08:00:00Z') + SWEEP_QUIET_MS + 60_000).toISOString());
      assert.equal(await sweepOutbox(h.app.services), 1);
      await h.app.queue!.drain();
      assert.equal(sentTo('972531230001'), 1);
      assert.equal(await sweepOutbox(h.app.services), 0);
      await h.app.queue!.drain();
      assert.equal(sentTo('972531230001'), 1, 'sent once');
      assert.equal((await outboxOf(h, paymentId))[0].status, 'delivered');
    });

    test('killed before the transaction: nothing made; the next run makes the period once and sends it once', { timeout: 120_000 }, async (t) => {
      const s = await h.call('recurringCreate', { template: template({ supplierPhone: '0531230002' }), cadence: 'monthly', dayOfMonth: 3, startDate: '2030-02-01' });
      assert.equal(s.nextAt, '2030-02-03');
      await h.app.queue!.drain();
      const before = sentTo('972531230002');
      const paymentId = await killAt('2030-02-03T08:00:00Z', 'before', s.id, t);
      env.at('2030-02-03T08:01:00Z');
      const made = (await paymentsOf(h, s.id)).filter((p: any) => p.recurringPeriod === '2030-02');
      assert.equal(made.length, 0, 'killed before its transaction: nothing of February');
      const r = await runRecurring(h.app.services);
      const mine = r.created.filter((c) => c.scheduleId === s.id);
      assert.deepEqual(mine.map((c) => [c.paymentId, c.period]), [[paymentId, '2030-02']], 'the same payment id the killed run would have used');
      await h.app.queue!.drain();
      assert.equal(sentTo('972531230002') - before, 1);
      assert.deepEqual((await runRecurring(h.app.services)).created.filter((c) => c.scheduleId === s.id), []);
      await h.app.queue!.drain();
      assert.equal(sentTo('972531230002') - before, 1, 'sent once');
    });
  });
}
