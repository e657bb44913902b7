import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { fakeAi, reading, pdf, type FakeAi } from '../invoices/helpers.ts';
import { startFakeGmail, gmailEnv, connectMailbox, type FakeGmail, type FakeMail } from '../../fakes/gmail.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';
import { POLL_EVERY_MINUTES } from '../../../functions/src/domain/automations/automations.ts';
import { scheduleMailboxPolls } from '../../../functions/src/domain/automations/mailboxPoll.ts';

/**
 * Mailbox automations through their operations, the fake Gmail (users.getProfile historyId, users.history.list)
 * and the real queue: the schedule's poll tasks feed new mails to the import path.
 */
let h: Harness;
let fake: FakeGmail;
let ai: FakeAi;
let now = Date.now();
before(async () => {
  fake = await startFakeGmail();
  ai = fakeAi();
  h = await createHarness({ env: { ...gmailEnv(fake), MAILBOX_IMPORT_WAIT_MS: '0' }, overrides: { ai, clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await fake.close();
});

let seq = 0;
async function invoiceMail(over: Partial<FakeMail> = {}): Promise<FakeMail> {
  const bytes = await pdf();
  const n = ++seq;
  ai.script(bytes, reading({ number: `AUTO-${n}` }));
  return {
    id: `auto${n}`,
    from: `Supplier <s${n}@supplier.co.il>`,
    subject: `Invoice ${n}`,
    dateMs: Date.now(),
    body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'text/plain', data: Buffer.from('attached') }, { mimeType: 'application/pdf', data: bytes, filename: `inv${n}.pdf` }] },
    ...over,
  };
}

const numbers = async (biz: TestUser) =>
  (await h.app.services.store.query({ collection: invoicesPath(biz.businessId) })).map((d) => (d.data as any).reading?.number as string).sort();

/** One firing of the poll schedule (the next poll slot), then the queue: polls, then import batches. */
async function pollTick() {
  now += POLL_EVERY_MINUTES * 60_000;
  await scheduleMailboxPolls(h.app.services);
  await h.app.queue!.drain();
}

test('a mailbox automation imports a mail arriving after it was created, on the next poll, and only once', async () => {
  const biz = await h.newBusiness('Watcher');
  const accountId = await connectMailbox(h, biz);
  fake.add(await invoiceMail({ id: 'before-watch' }));
  const a = await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: null } }, biz);
  assert.equal(a.type, 'mailbox_invoices');
  assert.equal(a.enabled, true);
  assert.deepEqual(a.config, { accountId, labelId: null, labelName: '' });
  assert.equal(a.name, `Invoices from ${fake.email}`);
  assert.equal((await h.call('mailboxListAccounts', {}, biz)).items[0].automations, 1);

  await pollTick();
  assert.deepEqual(await numbers(biz), [], 'a mail older than the automation is not imported');

  const mail = await invoiceMail();
  fake.add(mail);
  await pollTick();
  assert.deepEqual(await numbers(biz), [`AUTO-${seq}`]);
  const gets = fake.gets(mail.id);
  const { items: runs } = await h.call('automationRuns', { id: a.id }, biz);
  assert.equal(runs.length, 1, 'empty scheduled polls are not runs');
  assert.equal(runs[0].trigger, 'schedule');
  assert.deepEqual({ found: runs[0].import.found, seen: runs[0].import.seen, invoices: runs[0].import.invoices, status: runs[0].import.status }, { found: 1, seen: 1, invoices: 1, status: 'done' });
  assert.deepEqual([runs[0].outcome, runs[0].params], ['pollImported', { found: 1 }]);
  const listed = (await h.call('automationList', {}, biz)).items.find((x: any) => x.id === a.id);
  assert.equal(listed.lastRun.runId, runs[0].runId);
  assert.ok(listed.lastPolledAt);

  // Later polls (and a manual one) find nothing new: the mail is neither fetched nor imported again.
  await pollTick();
  await pollTick();
  const manual = await h.call('automationRunNow', { id: a.id }, biz);
  assert.equal(manual.trigger, 'manual');
  assert.equal(manual.import, null);
  assert.match(manual.summary, /no new mail/);
  assert.deepEqual([manual.outcome, manual.params], ['pollNothingNew', {}]);
  await h.app.queue!.drain();
  assert.deepEqual(await numbers(biz), [`AUTO-${seq}`]);
  assert.equal(fake.gets(mail.id), gets);
  assert.equal((await h.call('automationRuns', { id: a.id }, biz)).items.length, 2);
});

test('a label automation imports only mails with that label; unknown mailboxes and labels are not found', async () => {
  const biz = await h.newBusiness('Labels');
  const accountId = await connectMailbox(h, biz);
  await assert.rejects(h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId: 'nosuchmailbox' } }, biz), (e: any) => e.code === 'not-found' && /^config\.accountId/.test(e.message));
  await assert.rejects(h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: 'Label_9' } }, biz), (e: any) => e.code === 'not-found' && /^config\.labelId/.test(e.message));
  await assert.rejects(h.call('automationCreate', { type: 'statements', config: { accountId } }, biz), (e: any) => e.code === 'invalid-argument' && /^type/.test(e.message));
  await assert.rejects(h.call('automationCreate', { type: 'mailbox_invoices', config: {} }, biz), (e: any) => e.code === 'invalid-argument' && /config\.accountId/.test(e.message));
  assert.equal((await h.call('automationList', {}, biz)).items.length, 1, 'nothing was created');

  const a = await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: 'Label_2' }, name: 'Receipts label' }, biz);
  assert.deepEqual(a.config, { accountId, labelId: 'Label_2', labelName: 'Receipts' });
  assert.equal(a.name, 'Receipts label');
  await assert.rejects(h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: 'Label_2' } }, biz), (e: any) => e.code === 'already-exists');

  const labelled = await invoiceMail({ labelIds: ['INBOX', 'Label_2'] });
  const other = await invoiceMail();
  const sent = await invoiceMail({ labelIds: ['SENT', 'Label_2'] });
  fake.add(labelled, other, sent);
  await h.call('automationRunNow', { id: a.id }, biz);
  await h.app.queue!.drain();
  assert.deepEqual(await numbers(biz), [`AUTO-${seq - 2}`], 'only the arriving mail with the label');

  // The user files the other mail under the label later: the next run takes it, and only it.
  fake.label(other.id, 'Label_2');
  await h.call('automationRunNow', { id: a.id }, biz);
  await h.app.queue!.drain();
  assert.deepEqual(await numbers(biz), [`AUTO-${seq - 2}`, `AUTO-${seq - 1}`].sort(), 'a mail labelled later is imported on the next run');
  await h.call('automationRunNow', { id: a.id }, biz);
  await h.app.queue!.drain();
  assert.equal((await numbers(biz)).length, 2, 'and only once');
});

test('a paused automation does nothing; resumed, it watches from then on', async () => {
  const biz = await h.newBusiness('Pauser');
  const accountId = await connectMailbox(h, biz);
  const a = await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: null } }, biz);
  const paused = await h.call('automationUpdate', { id: a.id, enabled: false }, biz);
  assert.equal(paused.enabled, false);
  fake.add(await invoiceMail());
  await pollTick();
  assert.deepEqual(await numbers(biz), []);
  const polls = (await h.app.services.store.query({ collection: '_tasks' })).filter((t) => t.data.queue === 'automationMailboxPoll' && (t.data.payload as any).automationId === a.id);
  assert.equal(polls.length, 0, 'no poll of the paused automation was even queued');
  await assert.rejects(h.call('automationRunNow', { id: a.id }, biz), (e: any) => e.code === 'failed-precondition' && /paused/.test(e.message));
  await assert.rejects(h.call('automationUpdate', { id: a.id, config: { onlyWhenComplete: true } }, biz), (e: any) => e.code === 'invalid-argument' && /^config/.test(e.message));

  await h.call('automationUpdate', { id: a.id, enabled: true, name: 'Back on' }, biz);
  await pollTick();
  assert.deepEqual(await numbers(biz), [], 'what arrived while paused is not imported');
  fake.add(await invoiceMail());
  await pollTick();
  assert.deepEqual(await numbers(biz), [`AUTO-${seq}`]);
});

test('a cursor Gmail no longer keeps falls back to a date search since the last poll', async () => {
  const biz = await h.newBusiness('Expired');
  const accountId = await connectMailbox(h, biz);
  const a = await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: null } }, biz);
  const mail = await invoiceMail({ dateMs: now + 60_000 });
  fake.add(mail);
  fake.historyFloor = fake.historyId + 1;
  try {
    const run = await h.call('automationRunNow', { id: a.id }, biz);
    assert.match(run.summary, /history had expired/);
    await h.app.queue!.drain();
    assert.ok((await numbers(biz)).includes(`AUTO-${seq}`));
  } finally {
    fake.historyFloor = 0;
  }
});

test('deleting: a mailbox automation and its runs go; mailboxDisconnect removes the automations of the mailbox', async () => {
  const biz = await h.newBusiness('Deleter');
  const accountId = await connectMailbox(h, biz);
  const a = await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: null } }, biz);
  await h.call('automationRunNow', { id: a.id }, biz);
  const d = await h.call('automationDelete', { id: a.id }, biz);
  assert.deepEqual(d, { id: a.id, deleted: true, runsRemoved: 1 });
  await assert.rejects(h.call('automationRuns', { id: a.id }, biz), (e: any) => e.code === 'not-found');
  await assert.rejects(h.call('automationDelete', { id: a.id }, biz), (e: any) => e.code === 'not-found');

  await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: null } }, biz);
  await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: 'Label_1' } }, biz);
  const r = await h.call('mailboxDisconnect', { accountId }, biz);
  assert.equal(r.automationsRemoved, 2);
  assert.deepEqual((await h.call('automationList', {}, biz)).items.map((x: any) => x.id), ['system_statements']);
});

test("another business can neither see, change, run, delete nor read the runs of an automation", async () => {
  const a = await h.newBusiness('Owner A');
  const accountId = await connectMailbox(h, a);
  const auto = await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: null } }, a);
  await h.call('automationRunNow', { id: auto.id }, a);
  const b = await h.newBusiness('Owner B');
  assert.deepEqual((await h.call('automationList', {}, b)).items.map((x: any) => x.id), ['system_statements']);
  const notFound = (e: any) => e.code === 'not-found' && /^id:/.test(e.message);
  await assert.rejects(h.call('automationUpdate', { id: auto.id, enabled: false }, b), notFound);
  await assert.rejects(h.call('automationRunNow', { id: auto.id }, b), notFound);
  await assert.rejects(h.call('automationRuns', { id: auto.id }, b), notFound);
  await assert.rejects(h.call('automationDelete', { id: auto.id }, b), notFound);
  await assert.rejects(h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId } }, b), (e: any) => e.code === 'not-found' && /^config\.accountId/.test(e.message));
  const mine = (await h.call('automationList', {}, a)).items.find((x: any) => x.id === auto.id);
  assert.equal(mine.enabled, true);
  assert.equal((await h.call('automationRuns', { id: auto.id }, a)).items.length, 1);
});
