import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { get, post } from '../../http.ts';
import { lastClosedMonth } from '../../../functions/src/domain/months.ts';

/** Automations over HTTP: GET for the read-only ones, and a retried POST with an Idempotency-Key that runs once. */
let h: Harness;
let origin: string;
before(async () => {
  h = await createHarness();
  origin = await h.listen();
});
after(() => h.close());

test('automationList and automationRuns answer GET; a retried automationRunNow with one Idempotency-Key starts one run', async () => {
  const list = await get(origin, '/v1/automationList', h.owner.apiKey);
  assert.equal(list.status, 200);
  assert.equal(list.body.result.items[0].id, 'system_statements');
  const month = lastClosedMonth(Date.now());
  const first = await post(origin, '/v1/automationRunNow', { id: 'system_statements', month }, h.owner.apiKey, { 'idempotency-key': 'run-once-1' });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const retry = await post(origin, '/v1/automationRunNow', { id: 'system_statements', month }, h.owner.apiKey, { 'idempotency-key': 'run-once-1' });
  assert.equal(retry.status, 200);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(retry.body.result.runId, first.body.result.runId);
  const runs = await get(origin, '/v1/automationRuns?id=system_statements', h.owner.apiKey);
  assert.equal(runs.status, 200);
  assert.deepEqual(runs.body.result.items.map((r: any) => r.runId), [first.body.result.runId]);
  const bad = await get(origin, '/v1/automationRuns', h.owner.apiKey);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid-argument');
  assert.match(bad.body.error.message, /^id/);
  const wrongMonth = await post(origin, '/v1/automationRunNow', { id: 'system_statements', month: '2026/01' }, h.owner.apiKey);
  assert.equal(wrongMonth.status, 400);
  assert.match(wrongMonth.body.error.message, /^month/);
});

test("includeAccountantZip over HTTP: set by POST, shown by GET, and the run's linked ZIP downloads from its capability link", async () => {
  const biz = await h.newBusiness('Accountant over HTTP');
  const set = await post(origin, '/v1/automationUpdate', { id: 'system_statements', config: { recipients: ['cpa@example.com'], includeAccountantZip: true } }, biz.apiKey);
  assert.equal(set.status, 200, JSON.stringify(set.body));
  const bad = await post(origin, '/v1/automationUpdate', { id: 'system_statements', config: { includeAccountantZip: 1 } }, biz.apiKey);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^config\.includeAccountantZip/);
  const list = await get(origin, '/v1/automationList', biz.apiKey);
  assert.deepEqual(list.body.result.items[0].config, { recipients: ['cpa@example.com'], onlyWhenComplete: false, includeAccountantZip: true });
  await post(origin, '/v1/accFolderCreate', { name: 'Invoices', source: { kind: 'invoices' } }, biz.apiKey);

  // No statement account: the run completes at once and mails the (empty) month package with the accountant's link.
  const month = lastClosedMonth(Date.now());
  const run = await post(origin, '/v1/automationRunNow', { id: 'system_statements', month }, biz.apiKey);
  assert.equal(run.status, 200, JSON.stringify(run.body));
  await h.app.queue!.drain();
  const runs = await get(origin, '/v1/automationRuns?id=system_statements', biz.apiKey);
  const acc = runs.body.result.items[0].mailed.accountantZip;
  assert.equal(acc.fileName, `accountant-${month}_${month}.zip`);
  assert.equal(acc.entries, 0);
  const zip = await fetch(acc.url.replace(/^https?:\/\/[^/]+/, origin));
  assert.equal(zip.status, 200);
  assert.equal(zip.headers.get('content-type'), 'application/zip');
  const bytes = Buffer.from(await zip.arrayBuffer());
  assert.equal(bytes.subarray(0, 2).toString(), 'PK', 'a ZIP');
  assert.ok(bytes.includes(Buffer.from('README.txt')), 'the README says what was searched');
});
