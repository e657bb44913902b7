import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { createHarness, type Harness } from '../../harness.ts';
import { connectMcp } from './client.ts';

/** The automations, statements and accountant operations as MCP tools, through the official client and the real server. */
let h: Harness;
let client: Client;
let call: Awaited<ReturnType<typeof connectMcp>>['call'];
let origin: string;
before(async () => {
  h = await createHarness();
  origin = await h.listen();
  ({ client, call } = await connectMcp(origin, h.owner.apiKey, 'statements-tools-test'));
});
after(async () => {
  await client.close();
  await h.close();
});

test('the statements automation is configured and listed; deleting it is refused, and the tool says it destroys', async () => {
  const set = await call('automationUpdate', { id: 'system_statements', config: { recipients: ['cpa@example.com'], onlyWhenComplete: true } });
  assert.equal(set.isError, false, JSON.stringify(set.body));
  const { items } = (await call('automationList')).body;
  assert.deepEqual(items.find((a: any) => a.id === 'system_statements').config, { recipients: ['cpa@example.com'], onlyWhenComplete: true, includeAccountantZip: false });
  const del = await call('automationDelete', { id: 'system_statements' });
  assert.equal(del.isError, true);
  assert.equal(del.body.code, 'failed-precondition');
  assert.match(del.body.message, /pause/);
  const bad = await call('automationUpdate', { id: 'system_statements', config: { recipients: ['not an address'] } });
  assert.equal(bad.body.code, 'invalid-argument');
  assert.match(bad.body.message, /^config\.recipients/);
  const { tools } = await client.listTools();
  assert.equal(tools.find((t) => t.name === 'automationDelete')!.annotations?.destructiveHint, true);
  assert.equal(tools.find((t) => t.name === 'automationRuns')!.annotations?.readOnlyHint, true);
});

test('statement sources: the marketplace says it is not configured, a gateway credential of the wrong type names the field', async () => {
  const market = await call('marketListAccounts');
  assert.deepEqual(market.body, { configured: false, accounts: [] });
  const gw = await call('gatewayConnect', { username: 'api-user', password: 'secret', sandbox: 'yes' });
  assert.equal(gw.isError, true);
  assert.equal(gw.body.code, 'invalid-argument');
  assert.match(gw.body.message, /^sandbox/);
  assert.doesNotMatch(JSON.stringify(gw.body), /secret/, 'the password is never echoed');
});

test('the accountant tree is built from the template and zipped; the link serves the ZIP', async () => {
  const tpl = await call('accFolderTemplate');
  assert.equal(tpl.isError, false, JSON.stringify(tpl.body));
  assert.ok(tpl.body.created > 0);
  assert.equal((await call('accFolderTemplate')).body.created, 0, 'a second run adds nothing');
  const { folders } = (await call('accountantFoldersList')).body;
  assert.equal(folders.length, tpl.body.folders.length);
  const zip = await call('accZip', { from: '2026-01', to: '2026-03' });
  assert.equal(zip.isError, false, JSON.stringify(zip.body));
  const res = await fetch(new URL(new URL(zip.body.url).pathname, origin));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/zip');
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(bytes.subarray(0, 2).toString('latin1'), 'PK');
  assert.equal(bytes.length, zip.body.size);
});
