import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { mercuryStatementId, mercuryUuid, startFakeMercury, type FakeMercury } from '../../fakes/mercury.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';

let h: Harness;
let mercury: FakeMercury;
const TOKEN = 'secret-token-mercury-123';
const last = addMonths(currentMonth(Date.now()), -1);
const prev = addMonths(last, -1);
const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-2)!;
const ACC1 = mercuryUuid('acc-1');
const ACC2 = mercuryUuid('acc-2');

before(async () => {
  mercury = await startFakeMercury();
  mercury.tokens.add(TOKEN);
  mercury.accounts.push({ id: ACC1, name: 'Checking', status: 'active', kind: 'checking' }, { id: ACC2, name: 'Savings', status: 'active', kind: 'savings' });
  mercury.statements.set(ACC1, new Map([[last, Buffer.from('%PDF-1.4 checking last')], [prev, Buffer.from('%PDF-1.4 checking prev')]]));
  mercury.statements.set(ACC2, new Map([[last, Buffer.from('%PDF-1.4 savings last')]]));
  h = await createHarness({ env: { USBANK_BASE_URL: mercury.baseUrl } });
});
after(async () => {
  await h.close();
  await mercury.close();
});

test('a wrong token is refused naming token, and nothing is stored', async () => {
  await assert.rejects(h.call('usbankConnect', { token: 'wrong' }), (e: any) => e.code === 'invalid-argument' && /^token:/.test(e.message) && !e.message.includes('wrong'));
  assert.deepEqual((await h.call('usbankListAccounts')).accounts, []);
  assert.equal(mercury.requests.at(-1)!.authorization, 'Bearer wrong');
});

test('connect, list accounts, sync through the queue pending → ready, download, re-sync replaces, disconnect', async () => {
  const c = await h.call('usbankConnect', { token: TOKEN });
  assert.deepEqual(c.accounts.map((a: any) => a.name).sort(), ['Checking', 'Savings']);
  assert.deepEqual(c.months, [last, prev]);
  assert.ok(!JSON.stringify(c).includes(TOKEN));
  const list = await h.call('usbankListAccounts');
  assert.equal(list.accounts.length, 2);
  assert.ok(list.accounts.every((a: any) => a.status === 'connected'));
  const checking = list.accounts.find((a: any) => a.name === 'Checking');

  // The month must be strict and closed.
  await assert.rejects(h.call('usbankSync', { accountId: checking.id, month: currentMonth(Date.now()) }), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message));
  await assert.rejects(h.call('usbankSync', { accountId: checking.id, month: '2024-1' }), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message));

  const s = await h.call('usbankSync', { accountId: checking.id, month: last });
  assert.equal(s.status, 'pending');
  assert.equal((await h.call('statementsList')).statements[0].status, 'pending');
  await h.app.queue!.drain();
  const [ready] = (await h.call('statementsList')).statements;
  assert.equal(ready.status, 'ready');
  assert.equal(ready.files.length, 1);
  assert.equal(ready.files[0].contentType, 'application/pdf');
  assert.equal((await h.app.services.files.open(tokenOf(ready.files[0].url)))!.bytes.toString(), '%PDF-1.4 checking last');
  assert.ok(mercury.requests.some((r) => r.path === `/api/v1/statements/${mercuryStatementId(ACC1, last)}/pdf` && r.authorization === `Bearer ${TOKEN}`));

  // Re-sync replaces the file: the new bytes are served, the old link is dead, still one statement.
  mercury.statements.get(ACC1)!.set(last, Buffer.from('%PDF-1.4 checking corrected'));
  await h.call('usbankSync', { accountId: checking.id, month: last });
  await h.app.queue!.drain();
  const after = (await h.call('statementsList')).statements;
  assert.equal(after.length, 1);
  assert.equal(after[0].files.length, 1);
  assert.equal((await h.app.services.files.open(tokenOf(after[0].files[0].url)))!.bytes.toString(), '%PDF-1.4 checking corrected');
  assert.equal(await h.app.services.files.open(tokenOf(ready.files[0].url)), null);

  // Disconnect forgets both accounts; the statement stays (docs/decisions.md).
  const d = await h.call('usbankDisconnect', { accountId: checking.id });
  assert.equal(d.removedAccountIds.length, 2);
  assert.deepEqual((await h.call('usbankListAccounts')).accounts, []);
  assert.equal((await h.call('statementsList')).statements.length, 1);
  await assert.rejects(h.call('usbankSync', { accountId: checking.id, month: last }), (e: any) => e.code === 'not-found');
});

test('a revoked token marks the accounts needs_reconnect and the month failed with the reason', async () => {
  const c = await h.call('usbankConnect', { token: TOKEN });
  const acc = c.accounts.find((a: any) => a.name === 'Savings');
  mercury.tokens.delete(TOKEN);
  await h.call('usbankSync', { accountId: acc.id, month: last });
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === acc.id);
  assert.equal(st.status, 'failed');
  assert.match(st.reason, /reconnect/);
  assert.ok((await h.call('usbankListAccounts')).accounts.every((a: any) => a.status === 'needs_reconnect'));
  await assert.rejects(h.call('usbankSync', { accountId: acc.id, month: last }), (e: any) => e.code === 'failed-precondition');
  // Reconnecting keeps the account ids and makes them usable again.
  mercury.tokens.add(TOKEN);
  const again = await h.call('usbankConnect', { token: TOKEN });
  assert.ok(again.accounts.some((a: any) => a.id === acc.id && a.status === 'connected'));
});

test('a 429 with Retry-After is retried within the call', async () => {
  mercury.rateLimitNext(2, '0');
  const c = await h.call('usbankConnect', { token: TOKEN });
  assert.equal(c.accounts.length, 2);
});

test('another business cannot list, sync, delete or download the statements', async () => {
  const b = await h.newBusiness('Other');
  const mine = (await h.call('statementsList')).statements;
  assert.ok(mine.length >= 1);
  assert.deepEqual((await h.call('statementsList', {}, b)).statements, []);
  assert.deepEqual((await h.call('usbankListAccounts', {}, b)).accounts, []);
  const acc = (await h.call('usbankListAccounts')).accounts[0];
  await assert.rejects(h.call('usbankSync', { accountId: acc.id, month: last }, b), (e: any) => e.code === 'not-found');
  await assert.rejects(h.call('statementDelete', { id: mine[0].id }, b), (e: any) => e.code === 'not-found');
  await assert.rejects(h.call('usbankDisconnect', { accountId: acc.id }, b), (e: any) => e.code === 'not-found');
  assert.equal(await h.app.services.files.read(b.businessId, mine[0].files[0].fileId), null);
  // The owner deletes: files gone, link dead.
  await h.call('statementDelete', { id: mine[0].id });
  assert.equal(await h.app.services.files.open(tokenOf(mine[0].files[0].url)), null);
  assert.equal((await h.call('statementsList')).statements.some((s: any) => s.id === mine[0].id), false);
});
