import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeGmail, gmailEnv, connectMailbox, type FakeGmail } from '../../fakes/gmail.ts';
import { accountsPath, automationRunStatementPath, statementId, type AccountRecord } from '../../../functions/src/domain/statements/statements.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';
import { accountSettled, runsPath, RUN_DEADLINE_MS, STATEMENTS_CHECK_QUEUE } from '../../../functions/src/domain/automations/automations.ts';
import { checkStatementsRun, startStatementsRun } from '../../../functions/src/domain/automations/statementsRun.ts';
import { runMailboxPoll } from '../../../functions/src/domain/automations/mailboxPoll.ts';

/** The completion step's deadline and a poll on a revoked mailbox, driven directly (the operations tests cover the rest). */
let h: Harness;
let fake: FakeGmail;
let now = Date.now();
const month = addMonths(currentMonth(Date.now()), -1);
before(async () => {
  fake = await startFakeGmail();
  h = await createHarness({ env: gmailEnv(fake), overrides: { clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await fake.close();
});

test('a run whose sync never settles ends at the deadline: that account counts as failed, the package is mailed once', async () => {
  const biz = await h.newBusiness('Deadline');
  const { store } = h.app.services;
  const at = new Date(now).toISOString();
  for (const [id, name] of [['usbank_x1', 'Fast'], ['usbank_x2', 'Stuck']]) {
    const a: AccountRecord = { id, source: 'usbank', connectionId: 'c1', providerAccountId: id, name, currency: 'USD', status: 'connected', reason: null, createdAt: at, updatedAt: at };
    await store.set(accountsPath(biz.businessId, id), { ...a });
  }
  await h.call('automationUpdate', { id: 'system_statements', config: { recipients: ['cpa@example.com'] } }, biz);
  const run = (await startStatementsRun(h.app.services, biz.businessId, month, 'manual'))!;
  // Only the first account's sync settles (the queue is not drained: the second one stays pending).
  await accountSettled(h.app.services, biz.businessId, run.runId, 'usbank_x1', month, { status: 'ready', reason: null });
  assert.equal(((await store.get(automationRunStatementPath(biz.businessId, run.runId, statementId('usbank_x1', month))))!.data as any).status, 'ready');
  assert.equal(await store.get(`_tasks/automationCheck-${biz.businessId}-${run.runId}-final`), null, 'one account pending: no completion yet');

  await checkStatementsRun(h.app.services, { businessId: biz.businessId, runId: run.runId, check: 0 });
  let rec = (await store.get(runsPath(biz.businessId, run.runId)))!.data as any;
  assert.equal(rec.status, 'running');
  assert.match(rec.summary, /1 of 2 account\(s\) settled/);
  assert.ok(await store.get(`_tasks/automationCheck-${biz.businessId}-${run.runId}-1`), 'the check is re-enqueued');
  assert.equal(((await store.get(`_tasks/automationCheck-${biz.businessId}-${run.runId}-1`))!.data as any).queue, STATEMENTS_CHECK_QUEUE);

  now += RUN_DEADLINE_MS + 1000;
  await checkStatementsRun(h.app.services, { businessId: biz.businessId, runId: run.runId, check: 1 });
  rec = (await store.get(runsPath(biz.businessId, run.runId)))!.data as any;
  assert.equal(rec.status, 'done');
  assert.deepEqual(rec.accounts.map((a: any) => [a.name, a.status, a.reason]), [['Fast', 'ready', null], ['Stuck', 'failed', 'still syncing when the run ended']]);
  assert.deepEqual(rec.mailed.to, ['cpa@example.com']);
  const outbox = async () => (await store.query({ collection: `businesses/${biz.businessId}/outbox` })).length;
  assert.equal(await outbox(), 1);
  // A duplicate delivery of the check task mails nothing more.
  await checkStatementsRun(h.app.services, { businessId: biz.businessId, runId: run.runId, check: 1 });
  assert.equal(await outbox(), 1);
});

test('a poll on a mailbox whose grant was revoked records a failed run and marks the mailbox, without retrying', async () => {
  const biz = await h.newBusiness('Revoked');
  const accountId = await connectMailbox(h, biz);
  const a = await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: null } }, biz);
  fake.revoke(fake.refreshTokens.at(-1)!);
  await runMailboxPoll(h.app.services, { businessId: biz.businessId, automationId: a.id });
  const [run] = (await h.call('automationRuns', { id: a.id }, biz)).items;
  assert.equal(run.status, 'failed');
  assert.match(run.summary, /poll failed: .*connect/);
  assert.ok(!run.summary.includes(fake.refreshTokens.at(-1)!), 'no token in the run');
  assert.equal((await h.call('mailboxListAccounts', {}, biz)).items[0].status, 'needs_reconnect');
  assert.equal((await h.call('automationList', {}, biz)).items.find((x: any) => x.id === a.id).lastRun.status, 'failed');
});
