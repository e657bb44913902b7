import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { createHarness, type Harness } from '../../harness.ts';
import { accountsPath, statementsPath, statementId, type AccountRecord, type StatementRecord } from '../../../functions/src/domain/statements/statements.ts';
import { sweepExpired } from '../../../functions/src/core/ttlSweep.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';

/**
 * The month package after it left: a send that finally failed shows as failed (issue 20 item 12), month inputs are
 * bounded (item 13), and a generated ZIP's link lives 7 days, then answers 410 and the file is gone (item 14).
 */

let h: Harness;
let origin: string;
let now = Date.now();
let smtp: SMTPServer;
const received: string[] = [];

before(async () => {
  // A real SMTP server that refuses one mailbox at RCPT TO (550), as a server does for an unknown user.
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (address.address === 'bounce@example.com') return cb(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      stream.resume();
      stream.on('end', () => {
        received.push(...session.envelope.rcptTo.map((r) => r.address));
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const port = (smtp.server.address() as AddressInfo).port;
  h = await createHarness({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, OUTBOX_MAX_ATTEMPTS: '1' }, overrides: { clock: { now: () => now } } });
  origin = await h.listen();
  await seed(h.owner.businessId);
});
after(async () => {
  await h.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const MONTH = addMonths(currentMonth(Date.now()), -2);

async function seed(businessId: string) {
  const at = new Date(now).toISOString();
  const a: AccountRecord = { id: 'usbank_a1', source: 'usbank', connectionId: 'c1', providerAccountId: 'p1', name: 'Mercury Checking', currency: 'USD', status: 'connected', reason: null, createdAt: at, updatedAt: at };
  await h.app.services.store.set(accountsPath(businessId, a.id), { ...a });
  const file = await h.app.services.files.save(businessId, { fileName: `statement-${MONTH}.pdf`, contentType: 'application/pdf', bytes: Buffer.from('%PDF-1.4 statement') });
  const st: StatementRecord = {
    id: statementId(a.id, MONTH), accountId: a.id, source: 'usbank', accountName: a.name, month: MONTH, status: 'ready', reason: null,
    files: [{ fileId: file.fileId, fileName: file.fileName, contentType: file.contentType, size: file.size }], gen: 1, runs: 1, runId: null, send: null, requestedAt: at, syncedAt: at,
  };
  await h.app.services.store.set(statementsPath(businessId, st.id), { ...st });
}

const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, origin);
const sendOf = async () => (await h.call('statementsList')).statements.find((s: any) => s.month === MONTH).send;

test('a package send that finally failed shows as failed with its reason in statementsList, not as sent', async () => {
  const sent = await h.call('statementsSend', { month: MONTH, recipients: ['cpa@example.com', 'bounce@example.com'] });
  assert.equal(sent.to.length, 2);
  const pending = await sendOf();
  assert.equal(pending.status, 'sending', 'nothing was delivered yet');
  await h.app.queue!.drain();
  assert.deepEqual(received, ['cpa@example.com']);
  const send = await sendOf();
  assert.equal(send.status, 'failed');
  assert.match(send.reason, /bounce@example\.com/);
  assert.match(send.reason, /550|No such user/);
  assert.deepEqual(send.failed.map((f: any) => f.to), ['bounce@example.com']);
  assert.doesNotMatch(send.reason, /cpa@example\.com/, 'the delivered recipient is not named as failed');

  // A later send to good addresses replaces it, and shows sent once every message was delivered.
  await h.call('statementsSend', { month: MONTH, recipients: ['cpa@example.com'] });
  await h.app.queue!.drain();
  const again = await sendOf();
  assert.equal(again.status, 'sent');
  assert.equal(again.reason, null);
  assert.deepEqual(again.failed, []);
});

test('months before 2000 and after the current month are refused, naming the field; nothing is built or sent', async () => {
  const future = addMonths(currentMonth(now), 1);
  for (const month of ['0000-01', '1999-12', future]) {
    await assert.rejects(h.call('statementsSend', { month, recipients: ['cpa@example.com'] }), (e: any) => e.code === 'invalid-argument' && /^month: /.test(e.message), month);
    await assert.rejects(h.call('statementsZip', { month }), (e: any) => e.code === 'invalid-argument' && /^month: /.test(e.message), month);
  }
  await assert.rejects(h.call('statementsZip', { month: '1999-12' }), { message: /2000-01/ });
  await assert.rejects(h.call('accZip', { from: '0000-01' }), (e: any) => e.code === 'invalid-argument' && /^from: .*2000-01/.test(e.message));
  await assert.rejects(h.call('accZip', { to: future }), (e: any) => e.code === 'invalid-argument' && /^to: .*future/.test(e.message));
  // The bounds themselves are accepted: 2000-01 for a package, the current month as a range's end.
  assert.equal((await h.call('statementsZip', { month: '2000-01' })).entries, 0);
  assert.equal(typeof (await h.call('accZip', { from: '2000-01', to: currentMonth(now) })).url, 'string');
});

test('a generated ZIP link works for 7 days (recorded), then answers 410 with a page and the file is deleted', async () => {
  const start = now;
  const zip = await h.call('statementsZip', { month: MONTH });
  assert.equal(Date.parse(zip.expiresAt) - start, 7 * 86_400_000);
  assert.equal((await fetch(local(zip.url))).status, 200);
  const other = await h.call('accZip', {});
  assert.equal(Date.parse(other.expiresAt) - start, 7 * 86_400_000);

  now = start + 7 * 86_400_000 - 60_000;
  assert.equal((await fetch(local(zip.url))).status, 200, 'still valid a minute before the end');

  now = start + 7 * 86_400_000 + 60_000;
  // The hourly sweep deletes what is due, before anyone opens the link.
  assert.ok((await h.app.services.files.purgeExpired()) >= 2);
  assert.equal(await h.app.services.files.read(h.owner.businessId, zip.fileId), null, 'the ZIP bytes are deleted');
  assert.equal(await h.app.services.files.ref(h.owner.businessId, zip.fileId), null, 'and its record');
  for (const url of [zip.url, other.url]) {
    const res = await fetch(local(url));
    assert.equal(res.status, 410);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const body = await res.text();
    assert.match(body, /This link has expired/);
    assert.match(body, /תוקף הקישור פג/);
  }
  // The month's statement file itself has no lifetime: it still opens.
  const st = (await h.call('statementsList')).statements.find((s: any) => s.month === MONTH);
  assert.equal((await fetch(local(st.files[0].url))).status, 200);

  // A ZIP whose link is opened after its end before the sweep came: 410, and the file goes then.
  const late = await h.call('statementsZip', { month: MONTH });
  now += 8 * 86_400_000;
  assert.equal((await fetch(local(late.url))).status, 410);
  assert.equal(await h.app.services.files.read(h.owner.businessId, late.fileId), null);

  // The "expired" answer is kept 90 days, then the link is simply unknown.
  now += 91 * 86_400_000;
  await sweepExpired(h.app.services.store, now);
  assert.equal((await fetch(local(zip.url))).status, 404);
});

test('the expired page names the day in Israel: a link made at 01:30 on June 11 in Israel (22:30 UTC on June 10) ended on June 18', async () => {
  const was = now;
  now = Date.parse('2026-06-10T22:30:00Z');
  try {
    const zip = await h.call('statementsZip', { month: '2000-01' });
    now += 8 * 86_400_000;
    const body = await (await fetch(local(zip.url))).text();
    assert.match(body, /was deleted on 2026-06-18,/);
    assert.match(body, /נמחק ב-2026-06-18,/);
  } finally {
    now = was;
  }
});
