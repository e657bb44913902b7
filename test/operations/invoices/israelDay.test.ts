import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, pdf, reading, uploadBody, type InvoicesEnv } from './helpers.ts';

// Issue 34 B5: an invoice whose reading has no date is dated by its upload day in Israel, not in UTC. The clock is
// the test's, set per case: the first hour of a summer month, the last hour of a winter month.

let env: InvoicesEnv;
let now = 0;
before(async () => {
  env = await invoicesEnv({ now: () => now });
});
after(() => env.close());

const uploadAt = async (iso: string, withReading: boolean) => {
  now = Date.parse(iso);
  const bytes = await pdf();
  if (withReading) env.ai.script(bytes, reading({ date: null }));
  return env.h.call('uploadInvoiceDoc', uploadBody(bytes));
};

test('an upload at 00:30 on April 1 in Israel (21:30 UTC on March 31) is dated April 1, read or not', async () => {
  for (const withReading of [false, true]) {
    const r = await uploadAt('2025-03-31T21:30:00Z', withReading);
    assert.equal(r.date, '2025-04-01');
    const listed = (await env.h.call('invoicesList', { from: '2025-04-01', to: '2025-04-30' })).items.map((i: any) => i.docId);
    assert.ok(listed.includes(r.docId), 'April lists it');
  }
});

test('an upload at 23:30 on February 28 in Israel (21:30 UTC) is dated February 28; at midnight (22:00 UTC) March 1', async () => {
  assert.equal((await uploadAt('2025-02-28T21:30:00Z', false)).date, '2025-02-28');
  assert.equal((await uploadAt('2025-02-28T22:00:00Z', false)).date, '2025-03-01');
});
