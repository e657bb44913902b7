import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { paymentsEnv, outbox, simulateSubmission, type PaymentsEnv } from '../operations/payments/helpers.ts';
import { post } from '../http.ts';
import { createHarness } from '../harness.ts';
import { activityPath, cutCodePoints } from '../../functions/src/core/activity.ts';
import { defineOperation } from '../../functions/src/core/defineOperation.ts';
import { empty } from '../../functions/src/core/schema.ts';
import { createRegistry, operations } from '../../functions/src/operations/index.ts';
import { upload, invoicesEnv } from '../operations/invoices/helpers.ts';

let env: PaymentsEnv;
let origin: string;
before(async () => {
  env = await paymentsEnv();
  origin = await env.h.listen();
});
after(() => env.close());

test('summaries are cut on code points, never inside a surrogate pair', () => {
  const s = 'a' + '𝕏'.repeat(400);
  const cut = cutCodePoints(s, 300);
  assert.equal(Array.from(cut).length, 300);
  assert.ok(cut.isWellFormed());
  assert.equal(cutCodePoints('short', 300), 'short');
});

// Names of astral characters, long enough that a cut at 300 UTF-16 units would land inside a pair.
const astral = (n: number) => 'a' + '𝕏😀'.repeat(n);

test('operations that quote a name answer 200 with astral names, write their activity row, and queue their messages', async () => {
  const { h } = env;
  const key = h.owner.apiKey;
  const supplier = await post(origin, '/v1/createSupplier', { name: astral(49), phone: '050-765-4321' }, key);
  assert.equal(supplier.status, 200, JSON.stringify(supplier.body));
  const created = await post(origin, '/v1/createPayment', { amountAgorot: 100, vatIncluded: true, description: astral(400), supplierName: astral(49), supplierEmail: 'x@example.com' }, key);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const paymentId = created.body.result.id;
  await simulateSubmission(h, paymentId);
  const paid = await post(origin, '/v1/markPaid', { paymentId }, key);
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  const messages = await outbox(h);
  assert.ok(messages.some((m) => (m.message as any).subject?.includes('שילם לך')), 'the paid email was staged');
  const rows = await h.app.services.store.query({ collection: activityPath(h.owner.businessId) });
  for (const op of ['createSupplier', 'createPayment', 'markPaid']) {
    const row = rows.find((r) => r.data.operation === op);
    assert.ok(row, `activity row of ${op}`);
    assert.ok((row.data.summary as string).isWellFormed());
  }
});

test('the other payment operations that quote the supplier name answer 200 over HTTP with astral names, and resendPayment queues its message', async () => {
  const { h } = env;
  const key = h.owner.apiKey;
  const created = await post(origin, '/v1/createPayment', { amountAgorot: 100, vatIncluded: true, description: astral(400), supplierName: astral(49), supplierEmail: 'astral@example.com' }, key);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const paymentId = created.body.result.id;
  const queuedBefore = (await outbox(h)).filter((m) => m.to === 'astral@example.com').length;
  const calls: [string, Record<string, unknown>][] = [
    ['updatePaymentSettings', { paymentId, description: astral(400), supplierName: astral(49) }],
    ['resendPayment', { paymentId, channel: 'em' }],
  ];
  for (const [op, body] of calls) {
    const res = await post(origin, `/v1/${op}`, body, key);
    assert.equal(res.status, 200, `${op}: ${JSON.stringify(res.body)}`);
  }
  assert.equal((await outbox(h)).filter((m) => m.to === 'astral@example.com').length, queuedBefore + 1, 'the resent link was queued');
  await simulateSubmission(h, paymentId);
  for (const [op, body] of [['markPaid', { paymentId }], ['revertPaid', { paymentId, status: 'ready' }], ['cancelPayment', { paymentId }]] as const) {
    const res = await post(origin, `/v1/${op}`, body, key);
    assert.equal(res.status, 200, `${op}: ${JSON.stringify(res.body)}`);
  }
  const rows = await h.app.services.store.query({ collection: activityPath(h.owner.businessId) });
  for (const op of ['updatePaymentSettings', 'resendPayment', 'revertPaid', 'cancelPayment']) {
    const row = rows.find((r) => r.data.operation === op && (r.data.targetIds as string[]).includes(paymentId));
    assert.ok(row, `activity row of ${op}`);
    assert.ok((row.data.summary as string).isWellFormed(), `${op} summary well formed`);
  }
});

test('deleteInvoiceDoc with an astral file name answers 200 and logs it', async () => {
  const inv = await invoicesEnv();
  try {
    const doc = await upload(inv, undefined, { fileName: `${astral(60)}.pdf` });
    assert.equal((await inv.h.call('deleteInvoiceDoc', { docId: doc.docId })).deleted ?? true, true);
    const rows = await inv.h.app.services.store.query({ collection: activityPath(inv.h.owner.businessId) });
    assert.ok(rows.some((r) => r.data.operation === 'deleteInvoiceDoc'));
  } finally {
    await inv.close();
  }
});

test('a failing activity row never turns a committed write into an error, and its messages are still queued', async () => {
  const staging = defineOperation({
    name: 'stageAndFailActivity',
    group: 'test',
    summary: 'test only',
    flags: {},
    input: empty(),
    output: z.object({ ok: z.literal(true) }),
    async run(_i, ctx) {
      await ctx.store.runTransaction(async (tx) => {
        ctx.outbox(tx, { channel: 'email', to: 'someone@example.com', subject: 'hello', text: 'hi' });
      });
      return { ok: true as const };
    },
    activity: () => {
      throw new Error('activity broke');
    },
  });
  const h = await createHarness({ registry: createRegistry([...operations, staging]) });
  try {
    assert.deepEqual(await h.call('stageAndFailActivity'), { ok: true });
    const tasks = await h.app.services.store.query({ collection: '_tasks' });
    assert.equal(tasks.length, 1, 'the delivery was queued');
  } finally {
    await h.close();
  }
});
