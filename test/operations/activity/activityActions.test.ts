import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { paymentsEnv, paymentInput, simulateSubmission, type PaymentsEnv } from '../payments/helpers.ts';
import { uploadBody, pdf } from '../invoices/helpers.ts';
import { post } from '../../http.ts';
import { createHarness } from '../../harness.ts';
import { engines } from '../../engines.ts';
import { operations } from '../../../functions/src/operations/index.ts';
import { connectMcp } from '../../surfaces/mcp/client.ts';
import { ACTIVITY_KINDS } from '../../../functions/src/operations/activity/listActivity.ts';

let env: PaymentsEnv;
let origin: string;
before(async () => {
  env = await paymentsEnv();
  origin = await env.h.listen();
});
after(() => env.close());

const newest = async (op: string) => (await env.h.call('listActivity')).items.find((r: any) => r.operation === op);

/** A person reads params: no value may be one of the row's ids. */
function noIds(row: any) {
  for (const v of Object.values(row.params)) assert.ok(!row.targetIds.includes(v), `${row.action} params name an id: ${v}`);
}

test('createPayment and markPaid over HTTP: action and params carry the supplier and the amount in agorot with its currency', async () => {
  const key = env.h.owner.apiKey;
  const created = await post(origin, '/v1/createPayment', paymentInput({ supplierName: 'אבי לוי', amountAgorot: 123_450 }), key);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  let row = await newest('createPayment');
  assert.equal(row.action, 'createPayment');
  assert.equal(row.kind, 'payments');
  assert.deepEqual(row.params, { supplier: 'אבי לוי', amountAgorot: 123_450, currency: 'ILS', channel: 'wa' });
  noIds(row);
  await simulateSubmission(env.h, created.body.result.id);
  const paid = await post(origin, '/v1/markPaid', { paymentId: created.body.result.id }, key);
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  row = await newest('markPaid');
  assert.equal(row.action, 'markPaid');
  assert.deepEqual(row.params, { supplier: 'אבי לוי', amountAgorot: 123_450, currency: 'ILS', proof: false });
  // The English summary stays for scripts and old readers.
  assert.match(row.summary, /marked the payment to אבי לוי paid/);
  noIds(row);
});

test('uploadInvoiceDoc names the file and its reading; inviteMember the address and role', async () => {
  await env.h.call('uploadInvoiceDoc', uploadBody(await pdf(), { fileName: 'חשבונית מרץ.pdf' }));
  let row = await newest('uploadInvoiceDoc');
  assert.equal(row.kind, 'invoices');
  assert.equal(row.params.fileName, 'חשבונית מרץ.pdf');
  assert.equal(row.params.skipped, false);
  assert.equal(typeof row.params.status, 'string');
  noIds(row);
  await env.h.call('inviteMember', { email: 'yoni@example.com', role: 'user' });
  row = await newest('inviteMember');
  assert.deepEqual([row.action, row.kind, row.params], ['inviteMember', 'team', { email: 'yoni@example.com', role: 'user' }]);
  noIds(row);
});

test('a row written before actions existed still lists, with null action, kind and params', async () => {
  const { activityPath } = await import('../../../functions/src/core/activity.ts');
  const id = '000000000000001-old';
  await env.h.app.services.store.set(activityPath(env.h.owner.businessId, id), {
    id, at: 1, actorUserId: env.h.owner.userId, actorEmail: env.h.owner.email, keyName: 'k', operation: 'markPaid', targetIds: ['p1'], summary: 'marked the payment to X paid',
  });
  let page = await env.h.call('listActivity');
  while (page.nextCursor) page = await env.h.call('listActivity', { cursor: page.nextCursor });
  const old = page.items.at(-1);
  assert.deepEqual([old.id, old.action, old.kind, old.params, old.summary], [id, null, null, null, 'marked the payment to X paid']);
});

test('the kinds are the operation groups that write rows', () => {
  const groups = new Set(operations.filter((o) => !o.flags.readOnly).map((o) => o.group));
  assert.deepEqual([...ACTIVITY_KINDS].sort(), [...groups, 'messages'].sort());
});

test('an unknown kind is refused naming the field', async () => {
  await assert.rejects(env.h.call('listActivity', { kind: 'nope' }), (e: any) => e.code === 'invalid-argument' && /^kind/.test(e.message));
});

test('MCP: listActivity takes kind and actor and answers action and params', async () => {
  const member = await env.h.addMember('admin');
  await env.h.call('createSupplier', { name: 'ספק של חבר', email: 'member-supplier@example.com' }, member);
  await env.h.call('setBusinessApp', { app: 'software', enabled: true }, member);
  const { client, call } = await connectMcp(origin, env.h.owner.apiKey, 'activity-filters-test');
  try {
    const res = await call('listActivity', { kind: 'suppliers', actor: member.userId });
    assert.equal(res.isError, false, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.items.map((r: any) => [r.action, r.kind, r.actorUserId, r.params]),
      [['createSupplier', 'suppliers', member.userId, { name: 'ספק של חבר', type: 'supplier' }]],
    );
    const bad = await call('listActivity', { kind: 'nope' });
    assert.equal(bad.isError, true);
    assert.equal(bad.body.code, 'invalid-argument');
  } finally {
    await client.close();
  }
});

for (const engine of engines) {
  describe(`filters by kind and by person, paged by nextCursor (${engine.name})`, { skip: engine.skip }, () => {
    test('every matching row exactly once, and no other', async () => {
      const at = Date.parse('2026-11-03T08:00:00Z');
      // One millisecond for every row: the cursor alone keeps the pages apart.
      const h = await createHarness({ env: await engine.env(), overrides: { clock: { now: () => at } } });
      try {
        const owner = h.owner;
        const member = await h.addMember('admin');
        const jobs: Promise<unknown>[] = [];
        for (let i = 0; i < 65; i++) jobs.push(h.call('createSupplier', { name: `Owner supplier ${i}`, email: `o${i}@example.com` }, owner));
        for (let i = 0; i < 62; i++) jobs.push(h.call('createSupplier', { name: `Member supplier ${i}`, email: `m${i}@example.com` }, member));
        for (let i = 0; i < 3; i++) jobs.push(h.call('setBusinessApp', { app: 'software', enabled: i % 2 === 0 }, member));
        await Promise.all(jobs);
        const all = async (filter: Record<string, string>) => {
          const seen: any[] = [];
          let pages = 0;
          let cursor: string | null = null;
          do {
            const page: any = await h.call('listActivity', { ...filter, ...(cursor ? { cursor } : {}) });
            pages++;
            assert.ok(page.items.length <= 60);
            seen.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor);
          assert.equal(new Set(seen.map((r) => r.id)).size, seen.length, 'no row twice');
          return { seen, pages };
        };
        const bySuppliers = await all({ kind: 'suppliers' });
        assert.equal(bySuppliers.seen.length, 127);
        assert.equal(bySuppliers.pages, 3);
        assert.ok(bySuppliers.seen.every((r) => r.kind === 'suppliers' && r.action === 'createSupplier'));
        const byMember = await all({ actor: member.userId });
        assert.equal(byMember.seen.length, 65);
        assert.ok(byMember.seen.every((r) => r.actorUserId === member.userId));
        assert.equal(byMember.pages, 2);
        const both = await all({ kind: 'suppliers', actor: member.userId });
        assert.equal(both.seen.length, 62);
        assert.equal(both.pages, 2);
        assert.ok(both.seen.every((r) => r.actorUserId === member.userId && r.params.name.startsWith('Member supplier')));
        const account = await all({ kind: 'account', actor: owner.userId });
        assert.deepEqual(account.seen, []);
        // GET takes the filters in the query string, and the cursor with them.
        const origin2 = await h.listen();
        const res = await fetch(`${origin2}/v1/listActivity?kind=account&actor=${member.userId}`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
        const body = (await res.json()) as any;
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.deepEqual(body.result.items.map((r: any) => r.action), ['setBusinessApp', 'setBusinessApp', 'setBusinessApp']);
      } finally {
        await h.close();
      }
    });
  });
}
