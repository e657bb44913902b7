import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, reading, storedDoc, upload, type InvoicesEnv } from './helpers.ts';
import { engines } from '../../engines.ts';
import { post } from '../../http.ts';
import { connectMcp } from '../../surfaces/mcp/client.ts';
import { issuerId, suggestionsPath } from '../../../functions/src/domain/invoices/issuers.ts';
import { invoicesPath, type InvoiceDoc } from '../../../functions/src/domain/invoices/invoices.ts';
import { activityPath, type ActivityRow } from '../../../functions/src/core/activity.ts';

/** invoicesMove and invoicesAssignSupplier: many invoices at once, all or none, on both engines and every surface. */

const SUPPLIER = { name: 'Plumber Moshe', phone: '050-222-3333' };
const KEY = '+972502223333';

/** `n` copies of a stored invoice under fresh ids, written straight to the store (uploading 500 PDFs would take minutes). */
async function copies(env: InvoicesEnv, of: InvoiceDoc, n: number, prefix: string): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);
  for (let i = 0; i < n; i += 250) {
    const batch = env.h.app.services.store.batch();
    for (const docId of ids.slice(i, i + 250)) batch.set(invoicesPath(env.h.owner.businessId, docId), { ...of, docId });
    await batch.commit();
  }
  return ids;
}

const activity = async (env: InvoicesEnv, operation: string) =>
  (await env.h.app.services.store.query({ collection: activityPath(env.h.owner.businessId) })).map((d) => d.data as unknown as ActivityRow).filter((r) => r.operation === operation);

for (const engine of engines) {
  describe(`bulk moves and assignments on ${engine.name}`, { skip: engine.skip }, () => {
    let env: InvoicesEnv;
    before(async () => {
      env = await invoicesEnv({ env: await engine.env() });
      await env.h.call('createSupplier', SUPPLIER);
    });
    after(() => env?.close());
    const call = (op: string, input: Record<string, unknown>, user = env.h.owner) => env.h.call(op, input, user);

    test('invoicesMove files every invoice by hand into the folder, once more changes nothing, one activity row names the count', async () => {
      const folder = await call('folderCreate', { name: 'Clients' });
      const docs = [await upload(env, reading()), await upload(env, reading()), await upload(env, reading())];
      const docIds = docs.map((d) => d.docId);
      const r = await call('invoicesMove', { docIds, folderId: folder.id });
      assert.deepEqual(r, { folderId: folder.id, folderName: 'Clients', moved: 3 });
      for (const id of docIds) {
        const d = await storedDoc(env.h, id);
        assert.deepEqual([d.folderId, d.folderBy, d.folderRuleId], [folder.id, 'hand', null]);
      }
      const listed = await call('invoicesList', { folderId: folder.id });
      assert.deepEqual(listed.items.map((i: any) => i.docId).sort(), [...docIds].sort());
      // A retry answers the same and rewrites nothing.
      const stamps = await Promise.all(docIds.map(async (id) => (await storedDoc(env.h, id)).updatedAt));
      assert.deepEqual(await call('invoicesMove', { docIds, folderId: folder.id }), r);
      assert.deepEqual(await Promise.all(docIds.map(async (id) => (await storedDoc(env.h, id)).updatedAt)), stamps);
      const rows = await activity(env, 'invoicesMove');
      assert.equal(rows.length, 2);
      assert.match(rows[0]!.summary, /^filed 3 invoice\(s\) into /);
      assert.deepEqual(rows[0]!.params, { count: 3, folder: 'Clients' });
    });

    test('invoicesMove is all or none: an unknown doc, a foreign doc or an unknown folder moves nothing and is named', async () => {
      const folder = await call('folderCreate', { name: 'Elsewhere' });
      const mine = await upload(env, reading());
      const other = await env.h.newBusiness('Other');
      const foreign = (await upload(env, reading(), {}, other)).docId;
      const before = (await storedDoc(env.h, mine.docId)).folderId;
      await assert.rejects(call('invoicesMove', { docIds: [mine.docId, 'nope'], folderId: folder.id }), { code: 'not-found', message: /^docIds: invoice document nope/ });
      await assert.rejects(call('invoicesMove', { docIds: [mine.docId, foreign], folderId: folder.id }), { code: 'not-found', message: new RegExp(`^docIds: invoice document ${foreign}`) });
      await assert.rejects(call('invoicesMove', { docIds: [mine.docId], folderId: 'no-such-folder' }), { code: 'not-found', message: /^folderId: folder no-such-folder/ });
      await assert.rejects(call('invoicesMove', { docIds: [mine.docId], folderId: folder.id }, other), { code: 'not-found' });
      assert.equal((await storedDoc(env.h, mine.docId)).folderId, before);
      assert.equal((await storedDoc(env.h, foreign, other.businessId)).folderId, 'general');
    });

    test('invoicesAssignSupplier assigns by hand, takes any form of the key, leaves suggestions, and one activity row names the count', async () => {
      const a = await upload(env, reading({ issuer: { name: 'Unknown Co', vatId: '550000001' } }));
      const b = await upload(env, reading({ issuer: { name: 'Unknown Co', vatId: '550000001' } }));
      const c = await upload(env, reading());
      const sid = issuerId('vat:550000001');
      assert.equal(a.suggestionId, sid);
      const docIds = [a.docId, b.docId, c.docId];
      const r = await call('invoicesAssignSupplier', { docIds, supplierKey: '050 222 3333' });
      assert.deepEqual(r, { supplierKey: KEY, supplierName: 'Plumber Moshe', assigned: 3 });
      for (const id of docIds) {
        const d = await storedDoc(env.h, id);
        assert.deepEqual([d.supplierKey, d.supplierName, d.supplierBy, d.suggestionId], [KEY, 'Plumber Moshe', 'hand', null]);
      }
      assert.deepEqual((await env.h.app.services.store.get(suggestionsPath(env.h.owner.businessId, sid)))?.data.docIds, []);
      // What the supplier filter of the list and the spend report read.
      const listed = await call('invoicesList', { supplierKey: KEY });
      assert.deepEqual(docIds.every((id) => listed.items.some((i: any) => i.docId === id)), true);
      assert.deepEqual(await call('invoicesAssignSupplier', { docIds, supplierKey: KEY }), r);
      const rows = await activity(env, 'invoicesAssignSupplier');
      assert.equal(rows.length, 2);
      assert.match(rows[0]!.summary, /^assigned 3 invoice\(s\) to supplier \+972502223333/);
      assert.deepEqual(rows[0]!.params, { count: 3, supplier: 'Plumber Moshe' });
    });

    test('invoicesAssignSupplier is all or none: an unknown supplier, an unknown or foreign doc assigns nothing', async () => {
      const mine = await upload(env, reading());
      const other = await env.h.newBusiness('Other');
      const foreign = (await upload(env, reading(), {}, other)).docId;
      await assert.rejects(call('invoicesAssignSupplier', { docIds: [mine.docId], supplierKey: '050-999-9999' }), { code: 'not-found', message: /^supplierKey: supplier \+972509999999/ });
      await assert.rejects(call('invoicesAssignSupplier', { docIds: [mine.docId], supplierKey: 'bad' }), { code: 'invalid-argument', message: /^supplierKey:/ });
      await assert.rejects(call('invoicesAssignSupplier', { docIds: [mine.docId, foreign], supplierKey: KEY }), { code: 'not-found', message: new RegExp(`^docIds: invoice document ${foreign}`) });
      // Another business does not see this one's supplier.
      await assert.rejects(call('invoicesAssignSupplier', { docIds: [foreign], supplierKey: KEY }, other), { code: 'not-found', message: /^supplierKey:/ });
      assert.equal((await storedDoc(env.h, mine.docId)).supplierKey, null);
      assert.equal((await storedDoc(env.h, foreign, other.businessId)).supplierKey, null);
    });

    test('limits: 500 invoices in one call (one commit) work; 501 or a repeated id are refused naming docIds', async () => {
      const seed = await storedDoc(env.h, (await upload(env, reading())).docId);
      const ids = await copies(env, seed, 500, 'bulk');
      // petty-cash is a built-in folder not stored yet: storing it must not push the move past one commit.
      assert.equal((await call('invoicesMove', { docIds: ids, folderId: 'petty-cash' })).moved, 500);
      assert.equal((await storedDoc(env.h, ids[499]!)).folderId, 'petty-cash');
      assert.equal((await call('invoicesAssignSupplier', { docIds: ids, supplierKey: KEY })).assigned, 500);
      assert.equal((await storedDoc(env.h, ids[0]!)).supplierKey, KEY);
      assert.equal((await storedDoc(env.h, ids[499]!)).supplierKey, KEY);
      const tooMany = [...ids, seed.docId];
      await assert.rejects(call('invoicesMove', { docIds: tooMany, folderId: 'general' }), { code: 'invalid-argument', message: /^docIds:/ });
      await assert.rejects(call('invoicesAssignSupplier', { docIds: tooMany, supplierKey: KEY }), { code: 'invalid-argument', message: /^docIds:/ });
      await assert.rejects(call('invoicesMove', { docIds: [seed.docId, seed.docId], folderId: 'general' }), { code: 'invalid-argument', message: new RegExp(`^docIds: ${seed.docId} is listed more than once`) });
      await assert.rejects(call('invoicesAssignSupplier', { docIds: [seed.docId, seed.docId], supplierKey: KEY }), { code: 'invalid-argument', message: /^docIds: .* more than once/ });
      await assert.rejects(call('invoicesMove', { docIds: [], folderId: 'general' }), { code: 'invalid-argument', message: /^docIds:/ });
      assert.equal((await storedDoc(env.h, seed.docId)).folderId, 'general');
    });
  });
}

describe('over HTTP and MCP', () => {
  let env: InvoicesEnv;
  let origin: string;
  before(async () => {
    env = await invoicesEnv();
    origin = await env.h.listen();
    await env.h.call('createSupplier', SUPPLIER);
  });
  after(() => env.close());

  test('HTTP: both operations answer, and a refusal is the error envelope naming the field', async () => {
    const folder = await env.h.call('folderCreate', { name: 'Via HTTP' });
    const docIds = [(await upload(env, reading())).docId, (await upload(env, reading())).docId];
    const moved = await post(origin, '/v1/invoicesMove', { docIds, folderId: folder.id }, env.h.owner.apiKey);
    assert.deepEqual([moved.status, moved.body.result], [200, { folderId: folder.id, folderName: 'Via HTTP', moved: 2 }]);
    const assigned = await post(origin, '/v1/invoicesAssignSupplier', { docIds, supplierKey: KEY }, env.h.owner.apiKey);
    assert.deepEqual([assigned.status, assigned.body.result], [200, { supplierKey: KEY, supplierName: 'Plumber Moshe', assigned: 2 }]);
    const twice = await post(origin, '/v1/invoicesMove', { docIds: [docIds[0], docIds[0]], folderId: folder.id }, env.h.owner.apiKey);
    assert.equal(twice.status, 400);
    assert.equal(twice.body.error.code, 'invalid-argument');
    assert.match(twice.body.error.message, /^docIds:/);
    const other = await env.h.newBusiness('Other');
    const foreign = await post(origin, '/v1/invoicesAssignSupplier', { docIds, supplierKey: KEY }, other.apiKey);
    assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'not-found']);
    const tooMany = await post(origin, '/v1/invoicesMove', { docIds: Array.from({ length: 501 }, (_, i) => `d${i}`), folderId: folder.id }, env.h.owner.apiKey);
    assert.deepEqual([tooMany.status, tooMany.body.error.code], [400, 'invalid-argument']);
    assert.match(tooMany.body.error.message, /^docIds:/);
  });

  test('MCP: both tools called through the official client', async () => {
    const { client, call } = await connectMcp(origin, env.h.owner.apiKey, 'bulk-invoices-test');
    try {
      const folder = await env.h.call('folderCreate', { name: 'Via MCP' });
      const docIds = [(await upload(env, reading())).docId, (await upload(env, reading())).docId, (await upload(env, reading())).docId];
      const moved = await call('invoicesMove', { docIds, folderId: folder.id });
      assert.deepEqual([moved.isError, moved.body], [false, { folderId: folder.id, folderName: 'Via MCP', moved: 3 }]);
      const assigned = await call('invoicesAssignSupplier', { docIds, supplierKey: '0502223333' });
      assert.deepEqual([assigned.isError, assigned.body], [false, { supplierKey: KEY, supplierName: 'Plumber Moshe', assigned: 3 }]);
      const refused = await call('invoicesAssignSupplier', { docIds: [...docIds, 'missing'], supplierKey: KEY });
      assert.equal(refused.isError, true);
      assert.equal(refused.body.code, 'not-found');
      assert.equal((await storedDoc(env.h, docIds[0]!)).folderId, folder.id);
    } finally {
      await client.close();
    }
  });
});
