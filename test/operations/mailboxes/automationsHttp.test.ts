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
