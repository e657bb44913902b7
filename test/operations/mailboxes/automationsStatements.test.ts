import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { startSmtp, mailText, mailAttachments } from '../../fakes/smtp.ts';
import { mercuryUuid, startFakeMercury, type FakeMercury } from '../../fakes/mercury.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';
import { runsPath, RUN_DEADLINE_MS } from '../../../functions/src/domain/automations/automations.ts';
import { scheduleMonthlyStatements } from '../../../functions/src/domain/automations/statementsRun.ts';
import { ZIP_LIFETIME_MS } from '../../../functions/src/core/files.ts';
import yauzl from 'yauzl';

/**
 * The statements automation through its operations and the real queue: three Mercury accounts, one of which has no
 * statement for the month (its sync fails). The clock is the test's: it moves only where a test says (the deadline's
 * safety net), so a run that completes shows that the last sync itself triggered the completion (issue 18, item 13).
 */
let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let mercury: FakeMercury;
let now = Date.now();
const TOKEN = 'secret-token-mercury-automations';
const month = addMonths(currentMonth(Date.now()), -1);

before(async () => {
  smtp = await startSmtp();
  mercury = await startFakeMercury();
  mercury.tokens.add(TOKEN);
  mercury.accounts.push({ id: mercuryUuid('a1'), name: 'Checking', status: 'active', kind: 'checking' }, { id: mercuryUuid('a2'), name: 'Savings', status: 'active', kind: 'savings' }, { id: mercuryUuid('a3'), name: 'Treasury', status: 'active', kind: 'treasury' });
  mercury.statements.set(mercuryUuid('a1'), new Map([[month, Buffer.from('%PDF-1.4 checking')]]));
  mercury.statements.set(mercuryUuid('a2'), new Map([[month, Buffer.from('%PDF-1.4 savings')]]));
  mercury.statements.set(mercuryUuid('a3'), new Map()); // no statement this month: its sync fails
  h = await createHarness({ env: { SMTP_URL: smtp.url, USBANK_BASE_URL: mercury.baseUrl }, overrides: { clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await mercury.close();
  await smtp.close();
});

const tasksOf = async (queue: string, biz: TestUser) => (await h.app.services.store.query({ collection: '_tasks' })).filter((t) => t.data.queue === queue && (t.data.payload as any).businessId === biz.businessId);
const outbox = async (biz: TestUser) => (await h.app.services.store.query({ collection: `businesses/${biz.businessId}/outbox` })).map((d) => d.data as any);

/** The schedule fires (twice, as a retried schedule would); the queue runs the syncs and, after the last, the completion. */
async function scheduledMonth() {
  await scheduleMonthlyStatements(h.app.services);
  await scheduleMonthlyStatements(h.app.services);
  await h.app.queue!.drain();
}

async function withAccounts(name: string, config: { recipients: string[]; onlyWhenComplete: boolean; includeAccountantZip?: boolean }) {
  const biz = await h.newBusiness(name);
  await h.call('usbankConnect', { token: TOKEN }, biz);
  const a = await h.call('automationUpdate', { id: 'system_statements', config }, biz);
  assert.deepEqual(a.config, { includeAccountantZip: false, ...config });
  return biz;
}

test('every business has the statements automation, with its defaults, before it is ever used', async () => {
  const biz = await h.newBusiness('Fresh');
  const { items } = await h.call('automationList', {}, biz);
  assert.equal(items.length, 1);
  assert.deepEqual(
    { id: items[0].id, type: items[0].type, system: items[0].system, enabled: items[0].enabled, config: items[0].config, lastRun: items[0].lastRun },
    { id: 'system_statements', type: 'statements', system: true, enabled: true, config: { recipients: [], onlyWhenComplete: false, includeAccountantZip: false }, lastRun: null },
  );
  assert.deepEqual((await h.call('automationRuns', { id: 'system_statements' }, biz)).items, []);
});

test('scheduled run, onlyWhenComplete: one account fails, so nothing is mailed; firing twice fans out once', async () => {
  const biz = await withAccounts('Complete Only', { recipients: ['cpa@example.com'], onlyWhenComplete: true });
  const syncsBefore = (await tasksOf('statementSync', biz)).length;
  await scheduledMonth();
  assert.equal((await tasksOf('statementSync', biz)).length - syncsBefore, 3, 'one sync task per account, once');
  const { items: runs } = await h.call('automationRuns', { id: 'system_statements' }, biz);
  assert.equal(runs.length, 1);
  const [run] = runs;
  assert.equal(run.trigger, 'schedule');
  assert.equal(run.month, month);
  assert.equal(run.status, 'done');
  assert.deepEqual(run.accounts.map((a: any) => [a.name, a.status]), [['Checking', 'ready'], ['Savings', 'ready'], ['Treasury', 'failed']]);
  assert.match(run.accounts[2].reason, /no statement/);
  assert.equal(run.mailed, null);
  assert.match(run.summary, /not mailed: Treasury failed and onlyWhenComplete is on/);
  // The same in words the dashboard translates.
  assert.deepEqual([run.outcome, run.params], ['statementsNotMailed', { month, synced: 2, total: 3, failed: 'Treasury', why: 'incomplete' }]);
  assert.deepEqual(await outbox(biz), []);
  const { items } = await h.call('automationList', {}, biz);
  assert.equal(items[0].lastRun.runId, run.runId);
  assert.equal(items[0].lastRun.status, 'done');

  // The schedule firing again later (same month) starts nothing.
  await scheduledMonth();
  assert.equal((await h.call('automationRuns', { id: 'system_statements' }, biz)).items.length, 1);
});

test('scheduled run, not onlyWhenComplete: the package is mailed through the outbox listing the missing account', async () => {
  const biz = await withAccounts('Mail Anyway', { recipients: ['books@example.com', 'cpa2@example.com'], onlyWhenComplete: false });
  const before = smtp.mails.length;
  await scheduledMonth();
  const [run] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
  assert.equal(run.status, 'done');
  assert.deepEqual(run.mailed.to, ['books@example.com', 'cpa2@example.com']);
  assert.deepEqual(run.mailed.missing, ['Treasury']);
  assert.deepEqual([run.outcome, run.params], ['statementsMailed', { month, synced: 2, total: 3, failed: 'Treasury', recipients: 2, missing: 1 }]);
  assert.equal(run.mailed.accountantZip, null, "the accountant's ZIP is off by default");
  assert.equal(run.mailed.messageIds.length, 2);
  const staged = await outbox(biz);
  assert.deepEqual(staged.map((m) => m.to).sort(), ['books@example.com', 'cpa2@example.com']);
  assert.ok(staged.every((m) => m.reason === 'automationStatements' && m.ref === run.runId));
  await h.app.queue!.drain();
  const mails = (await smtp.waitFor(before + 2)).slice(before);
  const texts = mails.map((m) => mailText(m.raw));
  // Latin names in the Hebrew text part are Unicode isolates (FSI…PDI).
  assert.ok(texts.every((t) => /בחבילה: \u2068Checking, Savings\u2069/.test(t) && /חסרים: \u2068Treasury\u2069/.test(t)));
  assert.ok(mails.some((m) => /books@example\.com/.test(m.raw)));
  // The send is recorded on the month's statements, as statementsSend does.
  const st = (await h.call('statementsList', {}, biz)).statements.find((s: any) => s.month === month && s.status === 'ready');
  assert.deepEqual(st.send.to, ['books@example.com', 'cpa2@example.com']);
});

test('automationRunNow: the month is strict and closed; the default is the last closed month', async () => {
  const biz = await withAccounts('Run Now', { recipients: [], onlyWhenComplete: false });
  await assert.rejects(h.call('automationRunNow', { id: 'system_statements', month: '2025-3' }, biz), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message));
  await assert.rejects(h.call('automationRunNow', { id: 'system_statements', month: currentMonth(now) }, biz), (e: any) => e.code === 'invalid-argument' && /^month:.*not closed/.test(e.message));
  await assert.rejects(h.call('automationRunNow', { id: 'nope' }, biz), (e: any) => e.code === 'not-found' && /^id:/.test(e.message));
  const run = await h.call('automationRunNow', { id: 'system_statements' }, biz);
  assert.equal(run.month, month);
  assert.equal(run.trigger, 'manual');
  assert.equal(run.status, 'running');
  assert.equal(run.accounts.length, 3);
  assert.equal(run.outcome, 'statementsRunning');
  const again = await h.call('automationRunNow', { id: 'system_statements' }, biz);
  assert.equal(again.runId, run.runId, 'a second run now while the month is being pulled joins that run');
  await h.app.queue!.drain();
  const [done] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
  assert.equal(done.runId, run.runId);
  assert.equal(done.status, 'done');
  assert.match(done.summary, /2 of 3 account\(s\) synced; not mailed: the automation has no recipients/);
  assert.deepEqual([done.outcome, done.params.why], ['statementsNotMailed', 'noRecipients']);
  assert.deepEqual(await outbox(biz), []);
});

test('the statements automation cannot be deleted, only paused; paused, it does nothing', async () => {
  const biz = await withAccounts('Paused', { recipients: ['cpa@example.com'], onlyWhenComplete: false });
  const storeBefore = (await h.app.services.store.query({ collection: runsPath(biz.businessId) })).length;
  await assert.rejects(h.call('automationDelete', { id: 'system_statements' }, biz), (e: any) => e.code === 'failed-precondition' && /pause it instead/.test(e.message));
  const paused = await h.call('automationUpdate', { id: 'system_statements', enabled: false }, biz);
  assert.equal(paused.enabled, false);
  assert.deepEqual(paused.config.recipients, ['cpa@example.com'], 'pausing keeps the config');
  const syncsBefore = (await tasksOf('statementSync', biz)).length;
  await scheduledMonth();
  assert.equal((await tasksOf('statementSync', biz)).length, syncsBefore, 'no sync was requested');
  assert.equal((await h.app.services.store.query({ collection: runsPath(biz.businessId) })).length, storeBefore);
  assert.deepEqual(await outbox(biz), []);
  await assert.rejects(h.call('automationRunNow', { id: 'system_statements' }, biz), (e: any) => e.code === 'failed-precondition' && /paused/.test(e.message));
  assert.equal((await h.call('automationList', {}, biz)).items[0].enabled, false);
  // Resumed, the next run goes ahead.
  await h.call('automationUpdate', { id: 'system_statements', enabled: true }, biz);
  assert.equal((await h.call('automationRunNow', { id: 'system_statements' }, biz)).status, 'running');
});

test('automationUpdate: bad recipients are refused naming the field and change nothing; config is for the statements automation only', async () => {
  const biz = await h.newBusiness('Validation');
  await h.call('automationUpdate', { id: 'system_statements', config: { recipients: ['a@example.com'] } }, biz);
  await assert.rejects(h.call('automationUpdate', { id: 'system_statements', config: { recipients: ['not an email'] } }, biz), (e: any) => e.code === 'invalid-argument' && /config\.recipients/.test(e.message));
  await assert.rejects(h.call('automationUpdate', { id: 'system_statements', name: '' }, biz), (e: any) => e.code === 'invalid-argument' && /^name/.test(e.message));
  const [a] = (await h.call('automationList', {}, biz)).items;
  assert.deepEqual(a.config, { recipients: ['a@example.com'], onlyWhenComplete: false, includeAccountantZip: false });
  assert.equal(a.name, 'Monthly statements');
  const renamed = await h.call('automationUpdate', { id: 'system_statements', name: 'Statements to the CPA', config: { onlyWhenComplete: true } }, biz);
  assert.equal(renamed.name, 'Statements to the CPA');
  assert.deepEqual(renamed.config, { recipients: ['a@example.com'], onlyWhenComplete: true, includeAccountantZip: false });
  await assert.rejects(h.call('automationUpdate', { id: 'system_statements', config: { includeAccountantZip: 'yes' } }, biz), (e: any) => e.code === 'invalid-argument' && /^config\.includeAccountantZip/.test(e.message));
  const withZip = await h.call('automationUpdate', { id: 'system_statements', config: { includeAccountantZip: true } }, biz);
  assert.deepEqual(withZip.config, { recipients: ['a@example.com'], onlyWhenComplete: true, includeAccountantZip: true }, 'the other settings stay');
});

test('automationRuns keeps the last 30 runs, newest first; older ones are pruned', async () => {
  const biz = await h.newBusiness('Many Runs');
  const ids: string[] = [];
  for (let i = 0; i < 33; i++) {
    now += 1000;
    ids.push((await h.call('automationRunNow', { id: 'system_statements', month: addMonths(month, -(i % 3)) }, biz)).runId);
    // Each run ends before the next starts (a run still in progress would be joined, not repeated).
    await h.app.queue!.drain();
  }
  const { items } = await h.call('automationRuns', { id: 'system_statements' }, biz);
  assert.equal(items.length, 30);
  assert.deepEqual(items.map((r: any) => r.runId), ids.slice(3).reverse());
  assert.equal((await h.app.services.store.query({ collection: runsPath(biz.businessId) })).length, 30, 'the three oldest are deleted');
});

test('another business sees only its own statements automation and runs', async () => {
  const a = await withAccounts('Owner A', { recipients: ['a-cpa@example.com'], onlyWhenComplete: false });
  await h.call('automationRunNow', { id: 'system_statements' }, a);
  const b = await h.newBusiness('Owner B');
  assert.deepEqual((await h.call('automationRuns', { id: 'system_statements' }, b)).items, []);
  const [bs] = (await h.call('automationList', {}, b)).items;
  assert.deepEqual(bs.config.recipients, []);
  await h.call('automationUpdate', { id: 'system_statements', enabled: false, config: { recipients: ['b@example.com'] } }, b);
  const [as] = (await h.call('automationList', {}, a)).items;
  assert.equal(as.enabled, true);
  assert.deepEqual(as.config.recipients, ['a-cpa@example.com']);
  // B's run pulls B's accounts only (none).
  await h.call('automationUpdate', { id: 'system_statements', enabled: true }, b);
  const run = await h.call('automationRunNow', { id: 'system_statements' }, b);
  assert.deepEqual(run.accounts, []);
});

const checks = async (biz: TestUser) => (await tasksOf('automationStatementsCheck', biz)).map((t) => ({ id: t.id, state: t.data.state, final: Boolean((t.data.payload as any).final) }));

test('run now: the last sync to settle completes the run at once and the mail goes out in the same queue run, with no check tick', async () => {
  const biz = await withAccounts('Fan In', { recipients: ['fanin@example.com'], onlyWhenComplete: false });
  const before = smtp.mails.length;
  const run = await h.call('automationRunNow', { id: 'system_statements' }, biz);
  assert.equal(run.status, 'running');
  // One drain, the clock standing still: the three syncs (two at once: the business's two slots), then the completion
  // the last of them queued, then the delivery.
  await h.app.queue!.drain();
  const [done] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
  assert.equal(done.status, 'done');
  assert.deepEqual(done.mailed.to, ['fanin@example.com']);
  assert.equal(done.finishedAt, run.startedAt, 'completed at the moment the syncs settled, not a check interval later');
  await smtp.waitFor(before + 1);
  assert.equal(smtp.mails.filter((m) => /To: fanin@example\.com/i.test(m.raw)).length, 1);
  assert.equal((await outbox(biz)).length, 1, 'mailed once');
  // The completion was the final check the last sync queued; the deadline's safety net is still waiting, unneeded.
  const c = await checks(biz);
  assert.deepEqual(c.filter((t) => t.final).map((t) => t.state), ['done']);
  assert.deepEqual(c.filter((t) => !t.final).map((t) => t.state), ['queued']);
  now += RUN_DEADLINE_MS + 1000;
  await h.app.queue!.drain();
  assert.equal((await outbox(biz)).length, 1, 'the safety net finds the run done and mails nothing more');
});

test('the deadline is the safety net: a sync that never settles (its task lost) fails its account when the run ends, and the rest is mailed', async () => {
  const biz = await withAccounts('Lost Sync', { recipients: ['lost@example.com'], onlyWhenComplete: false });
  const run = await h.call('automationRunNow', { id: 'system_statements' }, biz);
  const lost = (await tasksOf('statementSync', biz)).find((t) => t.data.state === 'queued' && (t.data.payload as any).runId === run.runId)!;
  await h.app.services.store.delete(lost.path);
  await h.app.queue!.drain();
  const [waiting] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
  assert.equal(waiting.status, 'running', 'one account is still pending');
  assert.equal(waiting.accounts.filter((a: any) => a.status === 'pending').length, 1);
  now += RUN_DEADLINE_MS + 1000;
  await h.app.queue!.drain();
  const [done] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
  assert.equal(done.status, 'done');
  assert.ok(done.accounts.some((a: any) => a.status === 'failed' && a.reason === 'still syncing when the run ended'));
  assert.equal((await outbox(biz)).length, 1);
});

test('a second run now joins the running run and brings in an account connected since; one mail covers all', async () => {
  const biz = await withAccounts('Join', { recipients: ['join@example.com'], onlyWhenComplete: false });
  const run = await h.call('automationRunNow', { id: 'system_statements' }, biz);
  assert.equal(run.accounts.length, 3);
  mercury.accounts.push({ id: mercuryUuid('a4'), name: 'Payroll', status: 'active', kind: 'checking' });
  mercury.statements.set(mercuryUuid('a4'), new Map([[month, Buffer.from('%PDF-1.4 payroll')]]));
  try {
    await h.call('usbankConnect', { token: TOKEN }, biz);
    const joined = await h.call('automationRunNow', { id: 'system_statements' }, biz);
    assert.equal(joined.runId, run.runId);
    assert.deepEqual(joined.accounts.map((a: any) => a.name).sort(), ['Checking', 'Payroll', 'Savings', 'Treasury']);
    await h.app.queue!.drain();
    const [done] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
    assert.equal(done.runId, run.runId);
    assert.equal(done.status, 'done');
    assert.deepEqual(done.accounts.find((a: any) => a.name === 'Payroll').status, 'ready');
    assert.equal((await outbox(biz)).length, 1);
    assert.match((await outbox(biz))[0].message.text, /בחבילה: .*Payroll/);
    // Once it is done, run now starts a new run.
    const next = await h.call('automationRunNow', { id: 'system_statements' }, biz);
    assert.notEqual(next.runId, run.runId);
  } finally {
    mercury.accounts.pop();
  }
});

test('a month already syncing when the run asks (a usbankSync by hand) settles that run\'s account too, and the run completes with it', async () => {
  const biz = await withAccounts('Already Syncing', { recipients: ['waiting@example.com'], onlyWhenComplete: false });
  const { accounts } = await h.call('usbankListAccounts', {}, biz);
  const checking = accounts.find((a: any) => a.name === 'Checking');
  const bySync = await h.call('usbankSync', { accountId: checking.id, month }, biz);
  assert.equal(bySync.status, 'pending');
  const run = await h.call('automationRunNow', { id: 'system_statements' }, biz);
  assert.equal((await tasksOf('statementSync', biz)).filter((t) => t.data.state === 'queued').length, 3, 'the pending month is not queued twice');
  await h.app.queue!.drain();
  const [done] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
  assert.equal(done.runId, run.runId);
  assert.equal(done.status, 'done');
  assert.equal(done.accounts.find((a: any) => a.name === 'Checking').status, 'ready');
  assert.equal((await outbox(biz)).length, 1);
});

const accountantZips = async (biz: TestUser) =>
  (await h.app.services.store.query({ collection: `businesses/${biz.businessId}/files` })).map((f) => String(f.data.fileName)).filter((n) => n.startsWith('accountant-'));

/** Entry names of a stored ZIP, read back from the file store. */
async function zipNames(biz: TestUser, fileId: string): Promise<string[]> {
  const stream = await h.app.services.files.readStream(biz.businessId, fileId);
  assert.ok(stream, 'the ZIP is stored');
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(Buffer.concat(chunks), { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const names: string[] = [];
      zip.on('entry', (e) => (names.push(e.fileName), zip.readEntry()));
      zip.on('end', () => resolve(names));
      zip.readEntry();
    }),
  );
}

test("includeAccountantZip: the month package mail also links the accountant's ZIP of that month, built from the accountant tree", async () => {
  const biz = await withAccounts('With Accountant', { recipients: ['cpa-zip@example.com'], onlyWhenComplete: false, includeAccountantZip: true });
  await h.call('accFolderCreate', { name: 'Banks', source: { kind: 'statements' } }, biz);
  const before = smtp.mails.length;
  await h.call('automationRunNow', { id: 'system_statements' }, biz);
  await h.app.queue!.drain();
  const [run] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
  assert.equal(run.status, 'done');
  const acc = run.mailed.accountantZip;
  assert.ok(acc, 'the run records the linked ZIP');
  assert.equal(acc.fileName, `accountant-${month}_${month}.zip`, 'the run month only');
  assert.equal(acc.entries, 2, 'the two ready statements of the month (Treasury has none)');
  assert.equal(acc.missing, 0);
  assert.equal(Date.parse(acc.expiresAt), now + ZIP_LIFETIME_MS, 'the 7-day lifetime of generated ZIPs');
  assert.match(run.summary, /with the accountant's ZIP of the month \(2 file\(s\)\)/);
  const names = await zipNames(biz, acc.fileId);
  assert.ok(names.includes('README.txt') && names.includes('index.csv'));
  assert.deepEqual(names.filter((n) => n.startsWith('Banks/')).map((n) => n.split('/').slice(0, 3).join('/')).sort(), [`Banks/Checking/${month}`, `Banks/Savings/${month}`]);

  // One mail, through the outbox: the statements package and, below it, the accountant's link.
  const staged = await outbox(biz);
  assert.equal(staged.length, 1);
  assert.equal(staged[0].reason, 'automationStatements');
  assert.match(staged[0].message.text, new RegExp(`החבילה לרואה החשבון של ${month}: 2 קבצים`));
  const [mail] = (await smtp.waitFor(before + 1)).slice(before);
  const text = mailText(mail.raw);
  assert.ok(text.includes(acc.url), 'the mail carries the link to the accountant ZIP');
  assert.deepEqual(mailAttachments(mail.raw).map((f) => f.fileName), [`statements-${month}.zip`], 'only the statements ZIP is attached; the accountant ZIP is a link');
  const stored = await accountantZips(biz);
  assert.deepEqual(stored, [acc.fileName], 'one accountant ZIP, stored like every generated file');
});

test('includeAccountantZip with onlyWhenComplete and a failed account: nothing is mailed and no accountant ZIP is built', async () => {
  const biz = await withAccounts('Accountant Blocked', { recipients: ['cpa-blocked@example.com'], onlyWhenComplete: true, includeAccountantZip: true });
  await h.call('automationRunNow', { id: 'system_statements' }, biz);
  await h.app.queue!.drain();
  const [run] = (await h.call('automationRuns', { id: 'system_statements' }, biz)).items;
  assert.equal(run.mailed, null);
  assert.deepEqual(await outbox(biz), []);
  assert.deepEqual(await accountantZips(biz), [], 'no accountant ZIP was built');
});
