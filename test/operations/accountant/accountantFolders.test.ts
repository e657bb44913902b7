import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { get, post } from '../../http.ts';
import { accFoldersPath } from '../../../functions/src/domain/accountant/accountant.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

const names = (r: any) => r.folders.map((f: any) => `${'  '.repeat(f.depth)}${f.name}`);

test('create, rename, set source, move and delete build the tree; names are unique among siblings', async () => {
  const root = await h.call('accFolderCreate', { name: 'שנת 2026' });
  const inv = await h.call('accFolderCreate', { name: 'חשבוניות', parentId: root.id, source: { kind: 'invoices', payMethods: ['card', 'unknown'] } });
  assert.deepEqual(inv.source, { kind: 'invoices', folderIds: [], payMethods: ['card', 'unknown'], accountIds: [] });
  assert.deepEqual(inv.path, ['שנת 2026', 'חשבוניות']);
  await assert.rejects(h.call('accFolderCreate', { name: 'חשבוניות', parentId: root.id }), { code: 'already-exists', message: /^name: a folder named/ });
  await assert.rejects(h.call('accFolderCreate', { name: 'x', parentId: 'nope' }), { code: 'not-found', message: /^parentId:/ });
  await assert.rejects(h.call('accFolderCreate', { name: 'x', source: { kind: 'bogus' } }), { code: 'invalid-argument', message: /^source\.kind:/ });
  assert.equal((await h.call('accFolderRename', { id: inv.id, name: 'חשבוניות כרטיס' })).name, 'חשבוניות כרטיס');
  assert.equal((await h.call('accFolderSetSource', { id: inv.id, source: null })).source, null);
  const stm = await h.call('accFolderCreate', { name: 'דפי חשבון', source: { kind: 'statements' } });
  await h.call('accFolderMove', { id: stm.id, parentId: root.id });
  await assert.rejects(h.call('accFolderMove', { id: root.id, parentId: stm.id }), { code: 'invalid-argument', message: /^parentId: is the folder itself or below it/ });
  assert.deepEqual(names(await h.call('accountantFoldersList')), ['שנת 2026', '  דפי חשבון', '  חשבוניות כרטיס']);
  const del = await h.call('accFolderDelete', { id: root.id });
  assert.equal(del.deletedIds.length, 3);
  assert.deepEqual((await h.call('accountantFoldersList')).folders, []);
});

test('the template builds the recommended tree from the business\'s folders and card endings, and a second run changes nothing', async () => {
  const biz = await h.newBusiness('Template');
  await h.call('folderCreate', { name: 'פרויקטים' }, biz);
  await h.call('folderSync', {}, biz);
  const first = await h.call('accFolderTemplate', {}, biz);
  assert.ok(first.created >= 7);
  const tree = names(first);
  for (const n of ['חשבוניות לפי תיקייה', '  כללי', '  קופה קטנה', '  פרויקטים', 'דפי חשבון', 'אסמכתאות תשלום', 'טפסים חתומים']) assert.ok(tree.includes(n), `${n} in ${tree.join(' | ')}`);
  // Every invoice belongs to one invoice folder, so no second branch may hold invoices again.
  assert.ok(!tree.includes('חשבוניות לפי אמצעי תשלום'), tree.join(' | '));
  const invoiceSources = first.folders.filter((f: any) => f.source?.kind === 'invoices');
  assert.ok(invoiceSources.every((f: any) => f.source.folderIds.length === 1 && f.source.payMethods.length === 0));
  const projects = first.folders.find((f: any) => f.name === 'פרויקטים');
  assert.equal(projects.source.kind, 'invoices');
  assert.equal(projects.source.folderIds.length, 1);
  // Renamed and moved by the owner, a template folder is still recognised.
  await h.call('accFolderRename', { id: projects.id, name: 'Projects' }, biz);
  const second = await h.call('accFolderTemplate', {}, biz);
  assert.equal(second.created, 0);
  assert.equal(second.folders.length, first.folders.length);
  // A new invoice folder adds just its own accountant folder.
  await h.call('folderCreate', { name: 'שיווק' }, biz);
  const third = await h.call('accFolderTemplate', {}, biz);
  assert.equal(third.created, 1);
});

test('another business cannot see, change or delete these folders', async () => {
  const a = await h.newBusiness('A');
  const b = await h.newBusiness('B');
  const f = await h.call('accFolderCreate', { name: 'Mine' }, a);
  assert.deepEqual((await h.call('accountantFoldersList', {}, b)).folders, []);
  for (const [op, input] of [['accFolderRename', { id: f.id, name: 'x' }], ['accFolderSetSource', { id: f.id, source: null }], ['accFolderMove', { id: f.id, parentId: '' }], ['accFolderDelete', { id: f.id }]] as const) {
    await assert.rejects(h.call(op, input, b), { code: 'not-found' }, op);
  }
  assert.ok(await h.app.services.store.get(accFoldersPath(a.businessId, f.id)));
});

test('over HTTP: GET the list and POST a create', async () => {
  const origin = await h.listen();
  const created = await post(origin, '/v1/accFolderCreate', { name: 'HTTP', source: { kind: 'proofs' } }, h.owner.apiKey);
  assert.equal(created.status, 200);
  const listed = await get(origin, '/v1/accountantFoldersList', h.owner.apiKey);
  assert.ok(listed.body.result.folders.some((f: any) => f.name === 'HTTP' && f.source.kind === 'proofs'));
});
