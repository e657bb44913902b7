import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createHarness } from '../../harness.ts';
import { israelHour, REMINDER_HOURS } from '../../../functions/src/domain/reminders/reminders.ts';

/** `admin run-job reminders` (what the scheduled function does, once) on a SQLite store, with the real clock. */
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'bfo-reminders-job-'));
const runDir = mkdtempSync(join(tmpdir(), 'bfo-reminders-run-'));
after(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
});

test('admin run-job reminders sends the day-3 reminder of a payment sent three days ago, once', async () => {
  const now = Date.now();
  let clock = now - 3 * 86_400_000;
  const h = await createHarness({ env: { DATA_DIR: dataDir, PUBLIC_LINK_BASE: 'https://pay.example.com' }, overrides: { clock: { now: () => clock } } });
  const p = await h.call('createPayment', { supplierName: 'Job Ltd', supplierEmail: 'job@example.com', amountAgorot: 1_000, vatIncluded: true, description: 'x' });
  await h.close();
  const env = { ...process.env, DATA_DIR: dataDir, BFO_RUN_DIR: runDir, LOG_LEVEL: 'warn', PUBLIC_LINK_BASE: 'https://pay.example.com' };
  const job = async () => JSON.parse((await run('npm', ['run', '--silent', 'admin', '--', 'run-job', 'reminders'], { env })).stdout);
  const hour = israelHour(Date.now());
  const inHours = hour >= REMINDER_HOURS.from && hour < REMINDER_HOURS.until;
  const first = await job();
  assert.equal(first.job, 'reminders');
  assert.equal(first.businesses, hour >= 7 ? 1 : 0, 'the job acts from 07:00 Israel time');
  assert.equal(first.reminders, inHours ? 1 : 0, `Israel hour ${hour}`);
  const second = await job();
  assert.equal(second.reminders, 0, 'never twice');
  clock = Date.now();
  const again = await createHarness({ env: { DATA_DIR: dataDir, PUBLIC_LINK_BASE: 'https://pay.example.com' }, overrides: { clock: { now: () => clock } } });
  try {
    const view = await again.call('paymentGet', { paymentId: p.id }, h.owner);
    assert.deepEqual(view.reminders.sent.map((r: any) => r.step), inHours ? [3] : []);
    if (inHours) assert.ok(view.messages.some((m: any) => m.id === `rem_${p.id}_3` && m.to === 'job@example.com'));
  } finally {
    await again.close();
  }
});
