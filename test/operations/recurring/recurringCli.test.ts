import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jerusalemDay } from '../../../functions/src/core/clock.ts';
import { addDays } from '../../../functions/src/domain/payments/dueDates.ts';
import { paymentsOf, recurringEnv, template, type RecurringEnv } from './helpers.ts';

/** `admin run-job recurring` (what the scheduled function does, under the emulators) on a DATA_DIR: once per occurrence, however often it runs. */
const run = promisify(execFile);
let env: RecurringEnv;
before(async () => {
  env = await recurringEnv({}, new Date(Date.now() - 7 * 86_400_000).toISOString());
});
after(() => env.close());

test('admin run-job recurring makes the due occurrence once; a second run makes nothing', { timeout: 120_000 }, async () => {
  const { h } = env;
  const today = jerusalemDay(Date.now());
  // Made a week ago (the test's clock), due today (the CLI's real clock).
  const s = await h.call('recurringCreate', { template: template({ channel: 'link' }), cadence: 'weekly', startDate: today, weekday: new Date(`${today}T00:00:00Z`).getUTCDay() });
  assert.deepEqual([s.nextAt, s.payments.length], [today, 0]);
  const cliEnv = { ...process.env, ...env.env, DATA_DIR: h.config.dataDir, BFO_RUN_DIR: mkdtempSync(join(tmpdir(), 'bfo-run-')), LOG_LEVEL: 'warn' };
  const first = await run('npm', ['run', '--silent', 'admin', '--', 'run-job', 'recurring'], { env: cliEnv });
  const out = JSON.parse(first.stdout);
  assert.equal(out.job, 'recurring');
  assert.deepEqual(out.created.map((c: any) => [c.scheduleId, c.period]), [[s.id, addDays(today, -new Date(`${today}T00:00:00Z`).getUTCDay())]]);
  const second = JSON.parse((await run('npm', ['run', '--silent', 'admin', '--', 'run-job', 'recurring'], { env: cliEnv })).stdout);
  assert.deepEqual(second.created, []);
  assert.equal((await paymentsOf(h, s.id)).length, 1);
});
