import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';
import { engines } from '../../engines.ts';
import { connectMcp } from '../../surfaces/mcp/client.ts';
import { invoicePdf } from '../../fakes/pdfs.ts';
import { invoicesEnv, reading, upload as uploadRead } from '../invoices/helpers.ts';
import { MERGE_CHUNK, mergeSuppliers } from '../../../functions/src/domain/payments/supplierMerge.ts';
import { paymentsPath } from '../../../functions/src/domain/payments/payments.ts';
import { fileStandingRequest, newSubmissionId } from '../../../functions/src/domain/payments/supplierSubmission.ts';

const PHONE = '+972521110001';
const EMAIL = 'dana@studio.example';

const pay = (h: Harness, contact: { supplierPhone?: string; supplierEmail?: string }, description = 'Design work', user = h.owner) =>
  h.call('createPayment', { amountAgorot: 10_000, vatIncluded: true, description, supplierName: 'Dana', channel: 'link', ...contact }, user);

const upload = async (h: Harness, supplierKey: string, n: string) =>
  h.call('uploadInvoiceDoc', { fileName: `${n}.pdf`, mimeType: 'application/pdf', dataBase64: (await invoicePdf({ number: n })).toString('base64'), supplierKey });

const listed = async (h: Harness, user = h.owner) => (await h.call('suppliersList', {}, user)).items.map((s: any) => s.key);
const activityOf = async (h: Harness) =>
  (await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/activity`, where: [['operation', '==', 'supplierMerge']] })).map((d) => d.data as any);

for (const engine of engines) {
  describe(`supplierMerge on ${engine.name}`, { skip: engine.skip }, () => {
    let h: Harness;
    let origin: string;
    before(async () => {
      h = await createHarness({ env: await engine.env() });
      origin = await h.listen();
    });
    after(() => h.close());

    test("payments, invoices, the card and the rules follow; from leaves the list; later payments to from's email land on into", async () => {
      // The same studio, known once by phone and once by email.
      await h.call('createSupplier', { name: 'Dana Studio', phone: PHONE });
      await h.call('saveSupplierContact', { supplierKey: PHONE, notes: 'calls back', bankCode: '12' });
      const byMail = await pay(h, { supplierEmail: EMAIL });
      assert.equal(byMail.supplier.key, EMAIL);
      await h.call('saveSupplierContact', { supplierKey: EMAIL, notes: 'old note', companyId: '516000001', bankCode: '10' });
      const inv = await upload(h, EMAIL, 'M-1');
      await h.call('vendorCategoryRuleSet', { key: `email:${EMAIL}`, category: 'software' });
      await h.call('vendorPayRuleSet', { key: `phone:${PHONE}`, rule: 'card' });

      const r = await h.call('supplierMerge', { from: EMAIL, into: '052-111-0001' });
      assert.deepEqual(r, { from: EMAIL, into: PHONE, name: 'Dana Studio', payments: 1, invoices: 1, alreadyMerged: false });

      assert.deepEqual(await listed(h), [PHONE]);
      const card = await h.call('getSupplierContact', { supplierKey: PHONE });
      // Into's values are kept; its gaps are filled from from's.
      assert.deepEqual([card.name, card.phone, card.email, card.notes, card.bankCode, card.companyId], ['Dana Studio', PHONE, EMAIL, 'calls back', '12', '516000001']);
      assert.equal((await h.call('suppliersList')).items[0].paymentCount, 1);
      assert.deepEqual((await h.call('paymentsList', { supplierKey: PHONE })).items.map((p: any) => p.id), [byMail.id]);
      // The old key lists what moved (an old link to it keeps working).
      assert.deepEqual((await h.call('paymentsList', { supplierKey: EMAIL })).items.map((p: any) => p.id), [byMail.id]);
      const doc = await h.call('invoiceGet', { docId: inv.docId });
      assert.deepEqual([doc.supplierKey, doc.supplierName], [PHONE, 'Dana Studio']);
      const rules = await h.call('vendorRulesList');
      assert.deepEqual(rules.categoryRules.filter((x: any) => x.key === `phone:${PHONE}`).map((x: any) => x.category), ['software']);
      assert.deepEqual(rules.payRules.filter((x: any) => x.key === `phone:${PHONE}`).map((x: any) => x.rule ?? x.payRule), ['card']);

      // The email is an alias now: a new request to it files under the phone.
      const later = await pay(h, { supplierEmail: EMAIL }, 'More design');
      assert.deepEqual(later.supplier, { key: PHONE, name: 'Dana Studio' });
      assert.deepEqual(await listed(h), [PHONE]);
      assert.equal((await h.call('suppliersList')).items[0].paymentCount, 2);

      // So does a request filed through the business's standing link with that email.
      await h.call('setMyPublicLink', { slug: `merge-${engine.name.toLowerCase()}` });
      const filed = await fileStandingRequest(h.app.services, {
        slug: `merge-${engine.name.toLowerCase()}`, submissionId: newSubmissionId(), name: 'Dana', email: EMAIL, amount: '100', description: 'Logo',
        payout: { method: 'bank', bankCode: '10', bankBranch: '600', bankAccount: '111222333', bankBeneficiary: 'Dana' },
      });
      assert.ok(filed);
      assert.equal((await h.call('paymentsList', { supplierKey: PHONE })).items.length, 3);
      assert.deepEqual(await listed(h), [PHONE]);

      // A repeat changes nothing and says so.
      const again = await h.call('supplierMerge', { from: EMAIL, into: PHONE });
      assert.deepEqual(again, { from: EMAIL, into: PHONE, name: 'Dana Studio', payments: 0, invoices: 0, alreadyMerged: true });
      const rows = await activityOf(h);
      assert.deepEqual(rows.filter((a: any) => /merged supplier/.test(a.summary)).map((a: any) => a.params), [{ supplier: 'Dana Studio', payments: 1, invoices: 1, already: false }]);
      assert.equal(rows.filter((a: any) => /already merged .*nothing changed/.test(a.summary) && a.params.already === true).length, 1);
    });

    test('refusals: itself, unknown keys naming the field, already merged elsewhere, a user member, another business', async () => {
      await h.call('createSupplier', { name: 'A', email: 'a@x.example' });
      await h.call('createSupplier', { name: 'B', email: 'b@x.example' });
      await assert.rejects(h.call('supplierMerge', { from: 'a@x.example', into: 'A@X.example' }), { code: 'invalid-argument', message: /^into: .*itself/ });
      await assert.rejects(h.call('supplierMerge', { from: 'nobody@x.example', into: 'a@x.example' }), { code: 'not-found', message: /^from: / });
      await assert.rejects(h.call('supplierMerge', { from: 'a@x.example', into: '0529999999' }), { code: 'not-found', message: /^into: / });
      await assert.rejects(h.call('supplierMerge', { from: 'not a key', into: 'a@x.example' }), { code: 'invalid-argument', message: /^from: / });
      const user = await h.addMember('user');
      await assert.rejects(h.call('supplierMerge', { from: 'a@x.example', into: 'b@x.example' }, user), { code: 'permission-denied' });
      const other = await h.newBusiness('Other Co');
      await h.call('createSupplier', { name: 'Theirs', email: 'theirs@x.example' }, other);
      await assert.rejects(h.call('supplierMerge', { from: 'theirs@x.example', into: 'a@x.example' }), { code: 'not-found', message: /^from: / });
      await assert.rejects(h.call('supplierMerge', { from: 'a@x.example', into: 'theirs@x.example' }), { code: 'not-found', message: /^into: / });
      assert.deepEqual(await listed(h, other), ['theirs@x.example']);
      // Nothing was merged by the refusals; a@ merged into b@ cannot then go into another.
      await h.call('supplierMerge', { from: 'a@x.example', into: 'b@x.example' });
      await assert.rejects(h.call('supplierMerge', { from: 'a@x.example', into: PHONE }), { code: 'failed-precondition', message: /already merged into b@x\.example/ });
    });

    test('more payments than one transaction holds move in chunks; an interrupted merge resumes', async () => {
      await h.call('createSupplier', { name: 'Big', phone: '0527770001' });
      const many = MERGE_CHUNK + 20;
      const from = 'bulk@x.example';
      await pay(h, { supplierEmail: from });
      // Seed the rest directly: hundreds of createPayment calls would be slow and test nothing more.
      const store = h.app.services.store;
      const [first] = await store.query({ collection: paymentsPath(h.owner.businessId), where: [['supplierKey', '==', from]] });
      for (let i = 1; i < many; i += 200) {
        const batch = store.batch();
        for (let j = i; j < Math.min(many, i + 200); j++) batch.set(paymentsPath(h.owner.businessId, `bulk-${j}`), { ...first.data, id: `bulk-${j}` });
        await batch.commit();
      }
      // Interrupted after its first chunk (the third transaction fails): the alias is written and one chunk moved.
      let tx = 0;
      const failing = new Proxy(store, {
        get: (t, k) => (k === 'runTransaction' ? (fn: any) => (++tx === 3 ? Promise.reject(new Error('crash')) : t.runTransaction(fn)) : (t as any)[k]),
      });
      await assert.rejects(mergeSuppliers(failing, h.owner.businessId, from, '+972527770001', new Date().toISOString()), /crash/);
      const left = async (key: string) => (await store.query({ collection: paymentsPath(h.owner.businessId), where: [['supplierKey', '==', key]] })).length;
      assert.deepEqual([await left(from), await left('+972527770001')], [many - MERGE_CHUNK, MERGE_CHUNK]);
      // Meanwhile a new request to the merging supplier's email already lands on into.
      assert.equal((await pay(h, { supplierEmail: from })).supplier.key, '+972527770001');
      const r = await h.call('supplierMerge', { from, into: '0527770001' });
      assert.deepEqual([r.payments, r.alreadyMerged], [many - MERGE_CHUNK, false]);
      assert.deepEqual([await left(from), await left('+972527770001')], [0, many + 1]);
      assert.deepEqual(await listed(h).then((k: string[]) => k.includes(from)), false);
    });

    test('over HTTP: the envelope, and a retry with the same Idempotency-Key replays without a second activity row', async () => {
      await h.call('createSupplier', { name: 'Web A', email: 'weba@x.example' });
      await h.call('createSupplier', { name: 'Web B', email: 'webb@x.example' });
      const rows = (await activityOf(h)).length;
      const headers = { 'idempotency-key': 'merge-web-1' };
      const first = await post(origin, '/v1/supplierMerge', { from: 'weba@x.example', into: 'webb@x.example' }, h.owner.apiKey, headers);
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, { ok: true, result: { from: 'weba@x.example', into: 'webb@x.example', name: 'Web B', payments: 0, invoices: 0, alreadyMerged: false } });
      const replay = await post(origin, '/v1/supplierMerge', { from: 'weba@x.example', into: 'webb@x.example' }, h.owner.apiKey, headers);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body);
      assert.equal((await activityOf(h)).length, rows + 1);
      const missing = await post(origin, '/v1/supplierMerge', { from: 'weba2@x.example', into: 'webb@x.example' }, h.owner.apiKey);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, 'not-found');
      assert.match(missing.body.error.message, /^from: /);
      const bad = await post(origin, '/v1/supplierMerge', { into: 'webb@x.example' }, h.owner.apiKey);
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.message, /^from: /);
    });
  });
}

test('one MCP call merges and the tool is marked destructive and admin-only', async () => {
  const h = await createHarness();
  try {
    const origin = await h.listen();
    const { client, call } = await connectMcp(origin, h.owner.apiKey, 'supplier-merge-test');
    try {
      await h.call('createSupplier', { name: 'M1', email: 'm1@x.example' });
      await h.call('createSupplier', { name: 'M2', phone: '0528880001' });
      const r = await call('supplierMerge', { from: 'm1@x.example', into: '0528880001' });
      assert.equal(r.isError, false);
      assert.deepEqual([r.body.into, r.body.name, r.body.alreadyMerged], ['+972528880001', 'M2', false]);
      const tool = (await client.listTools()).tools.find((t) => t.name === 'supplierMerge')!;
      assert.equal(tool.annotations?.destructiveHint, true);
      assert.match(tool.description!, /admin/i);
    } finally {
      await client.close();
    }
  } finally {
    await h.close();
  }
});

test("an invoice read later from the merged supplier's email is matched to the supplier it became", async () => {
  const env = await invoicesEnv();
  try {
    const { h } = env;
    await h.call('createSupplier', { name: 'Studio', phone: '0526660001', email: 'studio@x.example' });
    await h.call('createSupplier', { name: 'Studio (old)', email: 'old@x.example' });
    await h.call('supplierMerge', { from: 'old@x.example', into: '0526660001' });
    const doc = await uploadRead(env, reading({ issuer: { name: 'Old Studio Ltd', vatId: null, email: 'old@x.example' } }));
    assert.deepEqual([doc.supplierKey, doc.supplierName, doc.supplierBy], ['+972526660001', 'Studio', 'auto']);
  } finally {
    await env.close();
  }
});
