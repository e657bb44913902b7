import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { createHarness, type Harness } from '../../harness.ts';
import { connectMcp } from './client.ts';
import { startFakeGmail, gmailEnv, approveMailboxConsent, type FakeGmail } from '../../fakes/gmail.ts';

/** The mailbox operations as MCP tools: an assistant connects Gmail, counts, imports and reads the scanned mails. */
let h: Harness;
let fake: FakeGmail;
let client: Client;
let call: Awaited<ReturnType<typeof connectMcp>>['call'];
before(async () => {
  fake = await startFakeGmail();
  h = await createHarness({ env: { ...gmailEnv(fake), MAILBOX_IMPORT_WAIT_MS: '0' } });
  const origin = await h.listen();
  ({ client, call } = await connectMcp(origin, h.owner.apiKey, 'mailbox-tools-test'));
});
after(async () => {
  await client.close();
  await h.close();
  await fake.close();
});

const T0 = Date.parse('2026-02-01T00:00:00Z');

test('connect through the consent URL the tool returns, count, import and list the scanned mails', async () => {
  fake.add(
    { id: 'n1', from: 'Friend <f@x.example>', subject: 'Lunch', dateMs: T0 + 1000, body: { mimeType: 'text/plain', data: Buffer.from('tomorrow?') } },
    { id: 'n2', from: 'Shop <news@shop.example>', subject: 'Sale', dateMs: T0 + 2000, body: { mimeType: 'text/plain', data: Buffer.from('50% off') } },
  );
  const start = await call('mailboxConnectStart', { origin: 'https://app.example.com' });
  assert.equal(start.isError, false, JSON.stringify(start.body));
  const { res } = await approveMailboxConsent(h.http, start.body.url);
  assert.equal(res.status, 200);
  const accounts = (await call('mailboxListAccounts')).body.items;
  assert.equal(accounts.length, 1);
  assert.doesNotMatch(JSON.stringify(accounts), /1\/\/|refresh/i, 'no token in the answer');
  const accountId = accounts[0].accountId;
  assert.equal((await call('mailboxImportCount', { accountId, since: T0 })).body.count, 2);
  const imp = await call('mailboxImportStart', { accountId, since: T0 });
  assert.equal(imp.isError, false, JSON.stringify(imp.body));
  assert.match(imp.body.importId, /^[a-z0-9]{20}$/);
  await h.app.queue!.drain();
  const mails = (await call('mailsList', { result: 'no_invoice' })).body.items;
  assert.deepEqual(mails.map((m: any) => m.subject).sort(), ['Lunch', 'Sale']);
  const bad = await call('mailboxImportStart', { accountId, since: T0, importId: 'Not-Valid' });
  assert.equal(bad.body.code, 'invalid-argument');
  assert.match(bad.body.message, /^importId/);
});
