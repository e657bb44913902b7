import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';
import { engines } from '../../engines.ts';

/**
 * Issue 35 item 5's follow-up: after supplierMerge, an old link to the merged supplier (a bookmark, an email, an
 * activity row) still works: its card answers the supplier it became, saving it edits that card, and its payments
 * list lists what moved there.
 */
const PHONE = '+972521110002';
const EMAIL = 'noa@studio.example';

for (const engine of engines) {
  describe(`a merged supplier's key on ${engine.name}`, { skip: engine.skip }, () => {
    let h: Harness;
    let origin: string;
    before(async () => {
      h = await createHarness({ env: await engine.env() });
      origin = await h.listen();
    });
    after(() => h.close());

    test("getSupplierContact, saveSupplierContact and paymentsList's supplierKey follow the merge; an unknown key is still not found", async () => {
      await h.call('createSupplier', { name: 'Noa Studio', phone: PHONE });
      const p = await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: true, description: 'Logo', supplierName: 'Noa', supplierEmail: EMAIL, channel: 'link' });
      await h.call('supplierMerge', { from: EMAIL, into: PHONE });

      // Over HTTP, as the dashboard's supplier screen asks with the key in its URL.
      const got = await post(origin, '/v1/getSupplierContact', { supplierKey: EMAIL }, h.owner.apiKey);
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.deepEqual([got.body.result.key, got.body.result.name, got.body.result.merged], [PHONE, 'Noa Studio', EMAIL]);
      const own = await h.call('getSupplierContact', { supplierKey: PHONE });
      assert.equal(own.key, PHONE);
      assert.equal('merged' in own, false, 'a card asked for by its own key is not marked merged');

      const saved = await h.call('saveSupplierContact', { supplierKey: EMAIL, notes: 'from an old link' });
      assert.deepEqual([saved.key, saved.notes, saved.merged], [PHONE, 'from an old link', EMAIL]);
      assert.equal((await h.call('getSupplierContact', { supplierKey: PHONE })).notes, 'from an old link');
      assert.deepEqual((await h.call('suppliersList')).items.map((s: any) => s.key), [PHONE], 'no card was made again under the old key');

      const listed = await post(origin, '/v1/paymentsList', { supplierKey: EMAIL }, h.owner.apiKey);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.result.items.map((x: any) => x.id), [p.id]);
      assert.equal(listed.body.result.total, 1);

      const missing = await post(origin, '/v1/getSupplierContact', { supplierKey: 'nobody@studio.example' }, h.owner.apiKey);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, 'not-found');
      await assert.rejects(h.call('saveSupplierContact', { supplierKey: 'nobody@studio.example', notes: 'x' }), { code: 'not-found' });
    });
  });
}
