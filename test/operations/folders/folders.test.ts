import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { get, post } from '../../http.ts';
import { invoicesPath, type InvoiceDoc, type InvoiceReading, type MailboxOrigin } from '../../../functions/src/domain/invoices/invoices.ts';
import { foldersPath } from '../../../functions/src/domain/invoices/folders.ts';
import { planFiling } from '../../../functions/src/domain/invoices/folderRules.ts';

let h: Harness;
before(async () => {
  h = await createHarness();
});
after(() => h.close());

// ---------------------------------------------------------------------------------------------
// A complete InvoiceDoc written straight into the store: uploads, mailbox imports and supplier attachments.

let seq = 0;
type DocOver = Omit<Partial<InvoiceDoc>, 'reading'> & { reading?: Partial<InvoiceReading> | null };

function readingOf(over: Partial<InvoiceReading>): InvoiceReading {
  return {
    issuer: { name: 'Acme Ltd', vatId: '514000001', email: 'billing@acme.example', phone: null },
    docType: 'tax_invoice',
    number: 'INV-1',
    date: '2026-01-15',
    totalMinor: 10_000,
    currency: 'ILS',
    vatMinor: 1_525,
    payMethod: 'bank_transfer',
    cardEnding: null,
    lineItems: [{ description: 'Service', quantity: 1, totalMinor: 10_000 }],
    bank: null,
    allocationNumber: null,
    ...over,
  };
}

function mailOf(over: Partial<MailboxOrigin> = {}): MailboxOrigin {
  return { accountId: 'mbx-1', from: 'billing@acme.example', subject: 'Invoice for January', receivedAt: '2026-01-15T08:00:00.000Z', messageId: `<m${seq}@acme.example>`, body: false, ...over };
}

async function addDoc(over: DocOver = {}, user: TestUser = h.owner): Promise<InvoiceDoc> {
  const n = ++seq;
  // Zero-padded so that docId order is creation order.
  const docId = over.docId ?? `doc${String(n).padStart(6, '0')}`;
  const reading = over.reading === null ? null : readingOf(over.reading ?? {});
  const at = new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
  const doc: InvoiceDoc = {
    docId,
    businessId: user.businessId,
    fileId: `file${n}`,
    fileName: `invoice-${n}.pdf`,
    contentType: 'application/pdf',
    size: 1234,
    sha256: String(n).padStart(64, '0'),
    source: 'upload',
    paymentId: null,
    readingStatus: reading ? 'read' : 'unread',
    readingError: null,
    readAt: reading ? at : null,
    vendorKey: 'vat:514000001',
    duplicateOf: null,
    mailbox: null,
    folderId: '',
    folderBy: 'default',
    folderRuleId: null,
    category: '',
    categoryBy: null,
    note: '',
    payMark: '',
    effectivePayMark: 'unpaid',
    supplierKey: null,
    supplierName: '',
    supplierBy: null,
    suggestionId: null,
    softwareId: null,
    date: '2026-01-15',
    search: ['acme'],
    createdAt: at,
    createdAtMs: Date.parse(at),
    updatedAt: at,
    ...over,
    reading,
  };
  await h.app.services.store.set(invoicesPath(user.businessId, docId), { ...doc });
  return doc;
}

async function docOf(docId: string, user: TestUser = h.owner): Promise<InvoiceDoc> {
  const d = await h.app.services.store.get(invoicesPath(user.businessId, docId));
  assert.ok(d, `invoice ${docId} exists`);
  return d.data as unknown as InvoiceDoc;
}

const placementOf = async (docId: string, user?: TestUser) => {
  const d = await docOf(docId, user);
  return [d.folderId, d.folderBy, d.folderRuleId];
};

/** A fresh business per describe block keeps counts and rule orders independent. */
async function freshBusiness() {
  const user = await h.newBusiness();
  const call = <T = any>(op: string, input: unknown = {}) => h.call<T>(op, input, user);
  return { user, call };
}

/** Runs a batched operation until remaining is 0; returns the per-call results. */
async function loop<T extends { remaining: number }>(call: () => Promise<T>, max = 50): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < max; i++) {
    const r = await call();
    results.push(r);
    if (r.remaining === 0) return results;
  }
  throw new Error('did not converge');
}

const rule = (folderId: string, when: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({ when, folderId, ...extra });

// ---------------------------------------------------------------------------------------------

describe('foldersList and folderCreate', () => {
  test('a new business lists the general and petty-cash folders before anything is stored', async () => {
    const { call } = await freshBusiness();
    const list = await call('foldersList');
    assert.deepEqual(
      list.folders.map((f: any) => [f.id, f.kind, f.parentId, f.depth, f.count]),
      [
        ['general', 'general', '', 0, 0],
        ['petty-cash', 'petty_cash', '', 0, 0],
      ],
    );
    assert.equal(list.unfiled, 0);
  });

  test('creates nested folders; the list is a pre-order tree with depth, path, child ids and counts', async () => {
    const { user, call } = await freshBusiness();
    const clients = await call('folderCreate', { name: '  Clients  ' });
    assert.equal(clients.name, 'Clients');
    assert.equal(clients.kind, 'custom');
    assert.equal(clients.parentId, '');
    const a = await call('folderCreate', { name: 'Alpha', parentId: clients.id });
    const b = await call('folderCreate', { name: 'beta', parentId: clients.id });
    const deep = await call('folderCreate', { name: 'Deep', parentId: a.id });
    await addDoc({ folderId: a.id, folderBy: 'hand' }, user);
    await addDoc({ folderId: a.id, folderBy: 'hand' }, user);
    await addDoc({ folderId: 'general' }, user);
    await addDoc({}, user);
    const list = await call('foldersList');
    assert.deepEqual(
      list.folders.map((f: any) => [f.name, f.depth, f.count]),
      [
        ['כללי', 0, 1],
        ['קופה קטנה', 0, 0],
        ['Clients', 0, 0],
        ['Alpha', 1, 2],
        ['Deep', 2, 0],
        ['beta', 1, 0],
      ],
    );
    const listed = list.folders.find((f: any) => f.id === deep.id);
    assert.deepEqual(listed.path, ['Clients', 'Alpha', 'Deep']);
    assert.deepEqual(list.folders.find((f: any) => f.id === clients.id).childIds, [a.id, b.id]);
    assert.equal(list.unfiled, 1);
  });

  test('the first mutation stores the base built-ins', async () => {
    const { user, call } = await freshBusiness();
    await call('folderCreate', { name: 'Anything' });
    assert.ok(await h.app.services.store.get(foldersPath(user.businessId, 'general')));
    assert.ok(await h.app.services.store.get(foldersPath(user.businessId, 'petty-cash')));
  });

  test('names are required, trimmed and at most 100 characters', async () => {
    const { call } = await freshBusiness();
    await assert.rejects(call('folderCreate', { name: '   ' }), { code: 'invalid-argument', message: /^name: must not be empty/ });
    await assert.rejects(call('folderCreate', { name: 'x'.repeat(101) }), { code: 'invalid-argument', message: /^name: at most 100 characters/ });
    await assert.rejects(call('folderCreate', { name: 'a\u0007b' }), { code: 'invalid-argument', message: /^name: control characters/ });
    await assert.rejects(call('folderCreate', {}), { code: 'invalid-argument', message: /^name: is required/ });
    assert.equal((await call('folderCreate', { name: 'x'.repeat(100) })).name.length, 100);
  });

  test('sibling names are unique ignoring case, including the built-ins; other parents may reuse a name', async () => {
    const { call } = await freshBusiness();
    const top = await call('folderCreate', { name: 'Receipts' });
    await assert.rejects(call('folderCreate', { name: 'RECEIPTS' }), { code: 'already-exists', message: new RegExp(`^name: .*${top.id}`) });
    await assert.rejects(call('folderCreate', { name: 'כללי' }), { code: 'already-exists', message: /general/ });
    const inner = await call('folderCreate', { name: 'receipts', parentId: top.id });
    assert.equal(inner.parentId, top.id);
  });

  test('a parent that does not exist is not-found naming parentId; built-ins can hold subfolders', async () => {
    const { call } = await freshBusiness();
    await assert.rejects(call('folderCreate', { name: 'X', parentId: 'nope' }), { code: 'not-found', message: /^parentId: folder nope/ });
    const sub = await call('folderCreate', { name: '2026', parentId: 'general' });
    assert.equal(sub.parentId, 'general');
  });
});

describe('folderRename', () => {
  test('renames a custom folder and a built-in, keeping the built-in role', async () => {
    const { call } = await freshBusiness();
    const f = await call('folderCreate', { name: 'Old' });
    assert.equal((await call('folderRename', { id: f.id, name: ' New ' })).name, 'New');
    const general = await call('folderRename', { id: 'general', name: 'General' });
    assert.deepEqual([general.id, general.kind, general.name], ['general', 'general', 'General']);
    const list = await call('foldersList');
    assert.deepEqual(list.folders.slice(0, 1).map((x: any) => [x.id, x.name]), [['general', 'General']]);
  });

  test('refuses a sibling clash, allows a change of case of its own name, and is not-found for unknown ids', async () => {
    const { call } = await freshBusiness();
    const a = await call('folderCreate', { name: 'A' });
    await call('folderCreate', { name: 'B' });
    await assert.rejects(call('folderRename', { id: a.id, name: 'b' }), { code: 'already-exists' });
    assert.equal((await call('folderRename', { id: a.id, name: 'a' })).name, 'a');
    await assert.rejects(call('folderRename', { id: 'missing', name: 'x' }), { code: 'not-found' });
  });
});

describe('folderMove', () => {
  test('re-parents a folder with everything below it', async () => {
    const { call } = await freshBusiness();
    const a = await call('folderCreate', { name: 'A' });
    const b = await call('folderCreate', { name: 'B', parentId: a.id });
    const c = await call('folderCreate', { name: 'C', parentId: b.id });
    const t = await call('folderCreate', { name: 'T' });
    const moved = await call('folderMove', { id: b.id, parentId: t.id });
    assert.equal(moved.parentId, t.id);
    const list = await call('foldersList');
    const byId = new Map(list.folders.map((f: any) => [f.id, f]));
    assert.deepEqual((byId.get(c.id) as any).path, ['T', 'B', 'C']);
    assert.equal((byId.get(c.id) as any).parentId, b.id);
    assert.deepEqual((byId.get(a.id) as any).childIds, []);
    const top = await call('folderMove', { id: b.id, parentId: '' });
    assert.equal(top.parentId, '');
  });

  test('refuses a cycle with invalid-argument naming parentId', async () => {
    const { call } = await freshBusiness();
    const a = await call('folderCreate', { name: 'A' });
    const b = await call('folderCreate', { name: 'B', parentId: a.id });
    const c = await call('folderCreate', { name: 'C', parentId: b.id });
    await assert.rejects(call('folderMove', { id: a.id, parentId: c.id }), { code: 'invalid-argument', message: /^parentId: .*cycle/ });
    await assert.rejects(call('folderMove', { id: a.id, parentId: b.id }), { code: 'invalid-argument', message: /^parentId: / });
    await assert.rejects(call('folderMove', { id: a.id, parentId: a.id }), { code: 'invalid-argument', message: /^parentId: a folder cannot be its own parent/ });
    // Nothing moved.
    const list = await call('foldersList');
    assert.equal(list.folders.find((f: any) => f.id === a.id).parentId, '');
  });

  test('built-in folders stay at the top level; unknown ids are not-found; a clash at the destination is refused', async () => {
    const { call } = await freshBusiness();
    const a = await call('folderCreate', { name: 'A' });
    await assert.rejects(call('folderMove', { id: 'petty-cash', parentId: a.id }), { code: 'failed-precondition', message: /built-in/ });
    await assert.rejects(call('folderMove', { id: 'nope', parentId: '' }), { code: 'not-found' });
    await assert.rejects(call('folderMove', { id: a.id, parentId: 'nope' }), { code: 'not-found', message: /^parentId: / });
    const inner = await call('folderCreate', { name: 'a', parentId: 'general' });
    await assert.rejects(call('folderMove', { id: inner.id, parentId: '' }), { code: 'already-exists', message: /^parentId: / });
  });
});

describe('folderDelete', () => {
  test('deletes the subtree and moves its invoices to the general folder, filed by default', async () => {
    const { user, call } = await freshBusiness();
    const a = await call('folderCreate', { name: 'A' });
    const b = await call('folderCreate', { name: 'B', parentId: a.id });
    const c = await call('folderCreate', { name: 'C', parentId: b.id });
    const keep = await call('folderCreate', { name: 'Keep' });
    const inA = await addDoc({ folderId: a.id, folderBy: 'hand' }, user);
    const inC = await addDoc({ folderId: c.id, folderBy: 'rule', folderRuleId: 'r1' }, user);
    const inKeep = await addDoc({ folderId: keep.id, folderBy: 'hand' }, user);
    const res = await call('folderDelete', { id: a.id });
    assert.deepEqual([...res.deletedFolderIds].sort(), [a.id, b.id, c.id].sort());
    assert.equal(res.movedTo, 'general');
    assert.equal(res.movedInvoices, 2);
    assert.deepEqual(await placementOf(inA.docId, user), ['general', 'default', null]);
    assert.deepEqual(await placementOf(inC.docId, user), ['general', 'default', null]);
    assert.deepEqual(await placementOf(inKeep.docId, user), [keep.id, 'hand', null]);
    const ids = (await call('foldersList')).folders.map((f: any) => f.id);
    assert.deepEqual(ids, ['general', 'petty-cash', keep.id]);
    await assert.rejects(call('folderRename', { id: b.id, name: 'x' }), { code: 'not-found' });
  });

  test('with moveTo, invoices move there filed by hand, and rules aimed at the subtree follow', async () => {
    const { user, call } = await freshBusiness();
    const a = await call('folderCreate', { name: 'A' });
    const b = await call('folderCreate', { name: 'B', parentId: a.id });
    const dest = await call('folderCreate', { name: 'Dest' });
    const r = (await call('folderRuleSave', rule(b.id, { currency: 'USD' }))).rule;
    const d = await addDoc({ folderId: b.id, folderBy: 'rule', folderRuleId: r.id }, user);
    const res = await call('folderDelete', { id: a.id, moveTo: dest.id });
    assert.deepEqual(res.retargetedRules, [r.id]);
    assert.deepEqual(await placementOf(d.docId, user), [dest.id, 'hand', null]);
    assert.equal((await call('folderRulesList')).rules[0].folderId, dest.id);
  });

  test('moves more invoices than one commit holds', async () => {
    const { user, call } = await freshBusiness();
    const big = await call('folderCreate', { name: 'Big' });
    for (let i = 0; i < 520; i++) await addDoc({ folderId: big.id, folderBy: 'hand' }, user);
    const res = await call('folderDelete', { id: big.id });
    assert.equal(res.movedInvoices, 520);
    const list = await call('foldersList');
    assert.equal(list.folders.find((f: any) => f.id === 'general').count, 520);
  });

  test('moveTo must exist and lie outside the deleted subtree; built-ins cannot be deleted', async () => {
    const { call } = await freshBusiness();
    const a = await call('folderCreate', { name: 'A' });
    const b = await call('folderCreate', { name: 'B', parentId: a.id });
    await assert.rejects(call('folderDelete', { id: a.id, moveTo: b.id }), { code: 'invalid-argument', message: /^moveTo: .*inside the folder being deleted/ });
    await assert.rejects(call('folderDelete', { id: a.id, moveTo: a.id }), { code: 'invalid-argument', message: /^moveTo: / });
    await assert.rejects(call('folderDelete', { id: a.id, moveTo: 'nope' }), { code: 'not-found', message: /^moveTo: / });
    await assert.rejects(call('folderDelete', { id: 'general' }), { code: 'failed-precondition', message: /general folder cannot be deleted/ });
    await assert.rejects(call('folderDelete', { id: 'petty-cash' }), { code: 'failed-precondition' });
    await assert.rejects(call('folderDelete', { id: 'nope' }), { code: 'not-found' });
    assert.equal((await call('foldersList')).folders.length, 4, 'nothing was deleted');
  });
});

describe('invoiceSetFolder', () => {
  test('files an upload by hand', async () => {
    const { user, call } = await freshBusiness();
    const f = await call('folderCreate', { name: 'Mine' });
    const d = await addDoc({ folderId: 'general', folderBy: 'rule', folderRuleId: 'r' }, user);
    const res = await call('invoiceSetFolder', { folderId: f.id, docId: d.docId });
    assert.deepEqual(res, { docId: d.docId, folderId: f.id, folderBy: 'hand', source: 'upload' });
    assert.deepEqual(await placementOf(d.docId, user), [f.id, 'hand', null]);
  });

  test('files a supplier attachment found by paymentId and fileId', async () => {
    const { user, call } = await freshBusiness();
    const f = await call('folderCreate', { name: 'Suppliers' });
    await addDoc({ source: 'supplier', paymentId: 'pay1', fileId: 'fA' }, user);
    const target = await addDoc({ source: 'supplier', paymentId: 'pay1', fileId: 'fB' }, user);
    const res = await call('invoiceSetFolder', { folderId: f.id, paymentId: 'pay1', fileId: 'fB' });
    assert.deepEqual(res, { docId: target.docId, folderId: f.id, folderBy: 'hand', source: 'supplier' });
    await assert.rejects(call('invoiceSetFolder', { folderId: f.id, paymentId: 'pay1', fileId: 'fZ' }), { code: 'not-found', message: /supplier attachment/ });
  });

  test('exactly one of the two forms', async () => {
    const { call } = await freshBusiness();
    await assert.rejects(call('invoiceSetFolder', { folderId: 'general' }), { code: 'invalid-argument', message: /^docId: required/ });
    await assert.rejects(call('invoiceSetFolder', { folderId: 'general', docId: 'd', paymentId: 'p', fileId: 'f' }), { code: 'invalid-argument', message: /^docId: .*not both/ });
    await assert.rejects(call('invoiceSetFolder', { folderId: 'general', paymentId: 'p' }), { code: 'invalid-argument', message: /^fileId: required/ });
    await assert.rejects(call('invoiceSetFolder', { folderId: 'general', fileId: 'f' }), { code: 'invalid-argument', message: /^paymentId: required/ });
  });

  test('unknown folders and documents are not-found; the general folder works before it is stored', async () => {
    const { user, call } = await freshBusiness();
    const d = await addDoc({}, user);
    await assert.rejects(call('invoiceSetFolder', { folderId: 'nope', docId: d.docId }), { code: 'not-found', message: /^folderId: / });
    await assert.rejects(call('invoiceSetFolder', { folderId: 'general', docId: 'nope' }), { code: 'not-found' });
    await call('invoiceSetFolder', { folderId: 'general', docId: d.docId });
    assert.deepEqual(await placementOf(d.docId, user), ['general', 'hand', null]);
  });
});

describe('folderSync', () => {
  test('creates the built-ins with one folder per card ending seen, and files unfiled invoices by rule or default', async () => {
    const { user, call } = await freshBusiness();
    const travel = await call('folderCreate', { name: 'Travel' });
    const r = (await call('folderRuleSave', rule(travel.id, { supplier: 'airline' }))).rule;
    // A card seen on an invoice already filed by hand still gets its folder.
    await addDoc({ folderId: travel.id, folderBy: 'hand', reading: { payMethod: 'card', cardEnding: '1111' } }, user);
    const flight = await addDoc({ supplierName: 'Airline Co', reading: { payMethod: 'card', cardEnding: '2222' } }, user);
    const carded = await addDoc({ reading: { payMethod: 'card', cardEnding: '3333' } }, user);
    const cash = await addDoc({ reading: { payMethod: 'cash' } }, user);
    const plain = await addDoc({}, user);
    const unread = await addDoc({ reading: null }, user);
    const res = await call('folderSync');
    assert.deepEqual([...res.created].sort(), ['card-1111', 'card-2222', 'card-3333']);
    assert.deepEqual([res.filed, res.remaining], [5, 0]);
    assert.deepEqual(await placementOf(flight.docId, user), [travel.id, 'rule', r.id]);
    assert.deepEqual(await placementOf(carded.docId, user), ['card-3333', 'default', null]);
    assert.deepEqual(await placementOf(cash.docId, user), ['petty-cash', 'default', null]);
    assert.deepEqual(await placementOf(plain.docId, user), ['general', 'default', null]);
    assert.deepEqual(await placementOf(unread.docId, user), ['general', 'default', null]);
    const cards = (await call('foldersList')).folders.filter((f: any) => f.kind === 'card');
    assert.deepEqual(cards.map((f: any) => [f.id, f.cardEnding, f.name, f.count]), [
      ['card-1111', '1111', 'כרטיס 1111', 0],
      ['card-2222', '2222', 'כרטיס 2222', 0],
      ['card-3333', '3333', 'כרטיס 3333', 1],
    ]);
    const again = await call('folderSync');
    assert.deepEqual(again, { created: [], filed: 0, remaining: 0 });
  });

  test('works in bounded batches and converges when called in a loop', async () => {
    const { user, call } = await freshBusiness();
    const usd = await call('folderCreate', { name: 'USD' });
    await call('folderRuleSave', rule(usd.id, { currency: 'USD' }));
    for (let i = 0; i < 250; i++) await addDoc({ reading: { currency: i % 2 ? 'USD' : 'ILS' } }, user);
    const results = await loop(() => call('folderSync'));
    assert.deepEqual(results.map((r: any) => [r.filed, r.remaining]), [
      [100, 150],
      [100, 50],
      [50, 0],
    ]);
    const list = await call('foldersList');
    const count = (id: string) => list.folders.find((f: any) => f.id === id).count;
    assert.deepEqual([count(usd.id), count('general'), list.unfiled], [125, 125, 0]);
  });

  test('mailbox rules file imports; supplier attachments follow source rules', async () => {
    const { user, call } = await freshBusiness();
    const mail = await call('folderCreate', { name: 'Mail' });
    const sup = await call('folderCreate', { name: 'Attachments' });
    await call('folderRuleSave', rule(mail.id, { from: 'ACME.example', accountId: 'mbx-1' }));
    await call('folderRuleSave', rule(sup.id, { source: 'supplier' }));
    const imported = await addDoc({ source: 'mailbox', mailbox: mailOf() }, user);
    const otherBox = await addDoc({ source: 'mailbox', mailbox: mailOf({ accountId: 'mbx-2' }) }, user);
    const upload = await addDoc({}, user);
    const attachment = await addDoc({ source: 'supplier', paymentId: 'p1', fileId: 'f1' }, user);
    await call('folderSync');
    assert.equal((await docOf(imported.docId, user)).folderId, mail.id);
    assert.equal((await docOf(otherBox.docId, user)).folderId, 'general');
    assert.equal((await docOf(upload.docId, user)).folderId, 'general', 'a from rule never matches an upload');
    assert.equal((await docOf(attachment.docId, user)).folderId, sup.id);
  });

  test('planFiling gives uploads the same decision, with the built-in folder to create alongside', async () => {
    const { user, call } = await freshBusiness();
    const doc = await addDoc({ reading: { payMethod: 'card', cardEnding: '7777' } }, user);
    const plan = await planFiling(h.app.services.store, user.businessId, doc, '2026-02-01T00:00:00.000Z');
    assert.deepEqual(plan.placement, { folderId: 'card-7777', folderBy: 'default', folderRuleId: null });
    assert.deepEqual(plan.createFolders.map((f) => [f.id, f.kind, f.cardEnding]), [['card-7777', 'card', '7777']]);
    const f = await call('folderCreate', { name: 'Cards' });
    const r = (await call('folderRuleSave', rule(f.id, { payMethod: 'card' }))).rule;
    const ruled = await planFiling(h.app.services.store, user.businessId, doc, '2026-02-01T00:00:00.000Z');
    assert.deepEqual([ruled.placement, ruled.createFolders], [{ folderId: f.id, folderBy: 'rule', folderRuleId: r.id }, []]);
  });
});

describe('folder rules', () => {
  test('save creates enabled rules that go last; update keeps order and creation time', async () => {
    const { call } = await freshBusiness();
    const f = await call('folderCreate', { name: 'F' });
    assert.deepEqual((await call('folderRulesList')).rules, []);
    const one = await call('folderRuleSave', rule(f.id, { currency: 'USD' }));
    assert.equal(one.created, true);
    assert.equal(one.applied, null);
    assert.deepEqual([one.rule.enabled, one.rule.bodyInvoice, one.rule.order], [true, false, 0]);
    assert.equal(one.rule.when.from, '', 'unused conditions are stored as ""');
    assert.equal(one.rule.when.amountOp, '');
    const two = await call('folderRuleSave', rule(f.id, { currency: 'EUR' }));
    assert.equal(two.rule.order, 1);
    const updated = await call('folderRuleSave', { id: one.rule.id, ...rule(f.id, { currency: 'ILS' }), enabled: false });
    assert.equal(updated.created, false);
    assert.deepEqual([updated.rule.order, updated.rule.createdAt, updated.rule.enabled, updated.rule.when.currency], [0, one.rule.createdAt, false, 'ILS']);
    const kept = await call('folderRuleSave', { id: one.rule.id, ...rule(f.id, { currency: 'ILS' }) });
    assert.equal(kept.rule.enabled, false, 'an omitted enabled keeps its value on update');
    assert.deepEqual((await call('folderRulesList')).rules.map((r: any) => r.id), [one.rule.id, two.rule.id]);
  });

  test('folderId "" only with bodyInvoice; otherwise the folder must exist', async () => {
    const { call } = await freshBusiness();
    await assert.rejects(call('folderRuleSave', rule('', { from: 'x@y.z' })), { code: 'invalid-argument', message: /^folderId: / });
    const body = await call('folderRuleSave', rule('', { from: 'x@y.z' }, { bodyInvoice: true }));
    assert.deepEqual([body.rule.folderId, body.rule.bodyInvoice], ['', true]);
    await assert.rejects(call('folderRuleSave', { id: body.rule.id, ...rule('', {}), bodyInvoice: false }), { code: 'invalid-argument', message: /^folderId: / });
    await assert.rejects(call('folderRuleSave', rule('nope', {})), { code: 'not-found', message: /^folderId: / });
    await assert.rejects(call('folderRuleSave', { id: 'nope', ...rule('general', {}) }), { code: 'not-found', message: /folder rule nope/ });
    assert.equal((await call('folderRuleSave', rule('general', {}))).rule.folderId, 'general');
  });

  test('conditions are validated', async () => {
    const { call } = await freshBusiness();
    await assert.rejects(call('folderRuleSave', rule('general', { amountOp: 'ge' })), { code: 'invalid-argument', message: /^when\.amountOp: / });
    await assert.rejects(call('folderRuleSave', rule('general', { currency: 'GBP' })), { code: 'invalid-argument', message: /^when\.currency: / });
    await assert.rejects(call('folderRuleSave', rule('general', { source: 'fax' })), { code: 'invalid-argument', message: /^when\.source: / });
    await assert.rejects(call('folderRuleSave', rule('general', { category: 'no-such' })), { code: 'invalid-argument', message: /^when\.category: / });
    await assert.rejects(call('folderRuleSave', rule('general', { amount: 'ten' })), { code: 'invalid-argument', message: /^when\.amount: / });
    await assert.rejects(call('folderRuleSave', rule('general', { colour: 'red' })), { code: 'invalid-argument', message: /^when\.colour: unknown field/ });
    await assert.rejects(call('folderRuleSave', { folderId: 'general' }), { code: 'invalid-argument', message: /^when: is required/ });
  });

  test('every condition kind files documents through folderSync', async () => {
    const cases: [Record<string, unknown>, DocOver, DocOver][] = [
      [{ from: 'billing@acme' }, { source: 'mailbox', mailbox: mailOf() }, { source: 'mailbox', mailbox: mailOf({ from: 'x@other.example' }) }],
      [{ subject: 'JANUARY' }, { source: 'mailbox', mailbox: mailOf() }, { source: 'mailbox', mailbox: mailOf({ subject: 'February' }) }],
      [{ words: 'zzz january' }, { source: 'mailbox', mailbox: mailOf() }, { source: 'mailbox', mailbox: mailOf({ subject: 'hello' }) }],
      [{ notWords: 'refund' }, {}, { fileName: 'Refund-12.pdf' }],
      [{ supplier: 'Globex' }, { supplierName: 'Globex Corporation' }, { supplierName: 'Initech' }],
      [{ amountOp: 'gt', amount: 99.99 }, { reading: { totalMinor: 10_000 } }, { reading: { totalMinor: 9_999 } }],
      [{ amountOp: 'lt', amount: 50 }, { reading: { totalMinor: 4_999 } }, { reading: { totalMinor: 5_000 } }],
      [{ currency: 'EUR' }, { reading: { currency: 'EUR' } }, { reading: { currency: 'ILS' } }],
      [{ docType: 'receipt' }, { reading: { docType: 'receipt' } }, { reading: { docType: 'proforma' } }],
      [{ payMethod: 'paypal' }, { reading: { payMethod: 'paypal' } }, { reading: { payMethod: 'check' } }],
      [{ category: 'rent' }, { category: 'rent' }, { category: 'insurance' }],
      [{ accountId: 'mbx-9' }, { source: 'mailbox', mailbox: mailOf({ accountId: 'mbx-9' }) }, { source: 'mailbox', mailbox: mailOf() }],
      [{ source: 'upload' }, { source: 'upload' }, { source: 'supplier', paymentId: 'p', fileId: 'f' }],
    ];
    for (const [when, yes, no] of cases) {
      // A business per case, so that one case's rule never catches another's documents.
      const { user, call } = await freshBusiness();
      const folder = await call('folderCreate', { name: 'Target' });
      await call('folderRuleSave', rule(folder.id, when));
      const y = await addDoc(yes, user);
      const n = await addDoc(no, user);
      await call('folderSync');
      const label = JSON.stringify(when);
      assert.equal((await docOf(y.docId, user)).folderId, folder.id, `${label} should match`);
      assert.notEqual((await docOf(n.docId, user)).folderId, folder.id, `${label} should not match`);
    }
  });

  test('the first matching rule wins, and reordering changes the winner', async () => {
    const { user, call } = await freshBusiness();
    const a = await call('folderCreate', { name: 'A' });
    const b = await call('folderCreate', { name: 'B' });
    const ra = (await call('folderRuleSave', rule(a.id, { currency: 'USD' }))).rule;
    const rb = (await call('folderRuleSave', rule(b.id, { amountOp: 'gt', amount: 10 }))).rule;
    const d1 = await addDoc({ reading: { currency: 'USD' } }, user);
    await call('folderSync');
    assert.deepEqual(await placementOf(d1.docId, user), [a.id, 'rule', ra.id]);
    const reordered = await call('folderRuleReorder', { ids: [rb.id, ra.id] });
    assert.deepEqual(reordered.rules.map((r: any) => [r.id, r.order]), [[rb.id, 0], [ra.id, 1]]);
    assert.deepEqual((await call('folderRulesList')).rules.map((r: any) => r.id), [rb.id, ra.id]);
    const d2 = await addDoc({ reading: { currency: 'USD' } }, user);
    await call('folderSync');
    assert.deepEqual(await placementOf(d2.docId, user), [b.id, 'rule', rb.id]);
    // Disabled rules are skipped.
    await call('folderRuleSave', { id: rb.id, ...rule(b.id, { amountOp: 'gt', amount: 10 }), enabled: false });
    const d3 = await addDoc({ reading: { currency: 'USD' } }, user);
    await call('folderSync');
    assert.deepEqual(await placementOf(d3.docId, user), [a.id, 'rule', ra.id]);
  });

  test('folderRuleReorder must list every rule id exactly once', async () => {
    const { call } = await freshBusiness();
    const r1 = (await call('folderRuleSave', rule('general', {}))).rule.id;
    const r2 = (await call('folderRuleSave', rule('general', { currency: 'USD' }))).rule.id;
    await assert.rejects(call('folderRuleReorder', { ids: [r1] }), { code: 'invalid-argument', message: new RegExp(`^ids: .*missing ${r2}`) });
    await assert.rejects(call('folderRuleReorder', { ids: [r1, r2, r1] }), { code: 'invalid-argument', message: /^ids: .*more than once/ });
    await assert.rejects(call('folderRuleReorder', { ids: [r1, r2, 'other'] }), { code: 'invalid-argument', message: /^ids: other is not a folder rule/ });
    await assert.rejects(call('folderRuleReorder', { ids: [] }), { code: 'invalid-argument', message: /^ids: / });
    await assert.rejects(call('folderRuleReorder', {}), { code: 'invalid-argument', message: /^ids: is required/ });
    assert.deepEqual((await call('folderRuleReorder', { ids: [r2, r1] })).rules.map((r: any) => r.id), [r2, r1]);
  });

  test('applyExisting re-files rule-placed, default-placed and unfiled invoices, never hand-filed ones', async () => {
    const { user, call } = await freshBusiness();
    const usd = await call('folderCreate', { name: 'USD' });
    const other = await call('folderCreate', { name: 'Other' });
    const byDefault = await addDoc({ folderId: 'general', folderBy: 'default', reading: { currency: 'USD' } }, user);
    const byRule = await addDoc({ folderId: other.id, folderBy: 'rule', folderRuleId: 'gone', reading: { currency: 'USD' } }, user);
    const unfiled = await addDoc({ reading: { currency: 'USD' } }, user);
    const byHand = await addDoc({ folderId: other.id, folderBy: 'hand', reading: { currency: 'USD' } }, user);
    const notMatching = await addDoc({ folderId: 'general', folderBy: 'default', reading: { currency: 'ILS' } }, user);
    const saved = await call('folderRuleSave', { ...rule(usd.id, { currency: 'USD' }), applyExisting: true });
    assert.deepEqual(saved.applied, { refiled: 3, remaining: 0 });
    for (const d of [byDefault, byRule, unfiled]) assert.deepEqual(await placementOf(d.docId, user), [usd.id, 'rule', saved.rule.id]);
    assert.deepEqual(await placementOf(byHand.docId, user), [other.id, 'hand', null]);
    assert.deepEqual(await placementOf(notMatching.docId, user), ['general', 'default', null]);

    // Narrowing the rule sends what it no longer matches back through the rules, to the default.
    const narrowed = await call('folderRuleSave', { id: saved.rule.id, ...rule(usd.id, { currency: 'USD', amountOp: 'gt', amount: 1000 }), applyExisting: true });
    assert.deepEqual(narrowed.applied, { refiled: 3, remaining: 0 });
    assert.deepEqual(await placementOf(byDefault.docId, user), ['general', 'default', null]);
    assert.deepEqual(await placementOf(byHand.docId, user), [other.id, 'hand', null]);
  });

  test('folderRuleApply re-files in bounded batches with remaining, respecting priority and hand filing', async () => {
    const { user, call } = await freshBusiness();
    const low = await call('folderCreate', { name: 'Low' });
    const high = await call('folderCreate', { name: 'High' });
    const ids = { hand: [] as string[], vip: [] as string[], usd: [] as string[] };
    for (let i = 0; i < 230; i++) {
      const hand = i % 10 === 0;
      const vip = i % 10 === 1;
      const d = await addDoc({ folderId: hand ? 'petty-cash' : 'general', folderBy: hand ? 'hand' : 'default', supplierName: vip ? 'VIP Ltd' : '', reading: { currency: 'USD' } }, user);
      (hand ? ids.hand : vip ? ids.vip : ids.usd).push(d.docId);
    }
    const rHigh = (await call('folderRuleSave', rule(high.id, { supplier: 'vip' }))).rule;
    const rLow = (await call('folderRuleSave', rule(low.id, { currency: 'USD' }))).rule;
    const steps = await loop(() => call<{ remaining: number; scanned: number; refiled: number }>('folderRuleApply', { id: rLow.id }));
    assert.equal(steps.length, 2);
    assert.equal(steps[0].scanned, 200);
    assert.ok(steps[0].remaining > 0 && steps[0].remaining <= 30, String(steps[0].remaining));
    assert.equal(steps.reduce((n, s) => n + s.refiled, 0), ids.vip.length + ids.usd.length);
    for (const id of ids.usd) assert.deepEqual(await placementOf(id, user), [low.id, 'rule', rLow.id]);
    // Applying the low rule still honours the higher-priority rule.
    for (const id of ids.vip) assert.deepEqual(await placementOf(id, user), [high.id, 'rule', rHigh.id]);
    for (const id of ids.hand) assert.deepEqual(await placementOf(id, user), ['petty-cash', 'hand', null]);
    // A later full pass starts over and finds nothing more to do.
    const again = await call('folderRuleApply', { id: rLow.id });
    assert.deepEqual([again.refiled, again.scanned], [0, 200]);
  });

  test('applying a disabled rule sends what it placed back through the other rules', async () => {
    const { user, call } = await freshBusiness();
    const f = await call('folderCreate', { name: 'F' });
    const r = (await call('folderRuleSave', rule(f.id, { currency: 'USD' }))).rule;
    const d = await addDoc({ reading: { currency: 'USD', payMethod: 'cash' } }, user);
    await call('folderSync');
    assert.deepEqual(await placementOf(d.docId, user), [f.id, 'rule', r.id]);
    await call('folderRuleSave', { id: r.id, ...rule(f.id, { currency: 'USD' }), enabled: false });
    assert.deepEqual(await placementOf(d.docId, user), [f.id, 'rule', r.id], 'saving without applyExisting moves nothing');
    const step = await call('folderRuleApply', { id: r.id });
    assert.deepEqual([step.refiled, step.remaining], [1, 0]);
    assert.deepEqual(await placementOf(d.docId, user), ['petty-cash', 'default', null]);
  });

  test('folderRuleDelete removes the rule and leaves its invoices where they are', async () => {
    const { user, call } = await freshBusiness();
    const f = await call('folderCreate', { name: 'F' });
    const r = (await call('folderRuleSave', rule(f.id, {}))).rule;
    const d = await addDoc({}, user);
    await call('folderSync');
    assert.deepEqual(await call('folderRuleDelete', { id: r.id }), { id: r.id, deleted: true });
    assert.deepEqual((await call('folderRulesList')).rules, []);
    assert.deepEqual(await placementOf(d.docId, user), [f.id, 'rule', r.id]);
    await assert.rejects(call('folderRuleDelete', { id: r.id }), { code: 'not-found' });
    await assert.rejects(call('folderRuleApply', { id: r.id }), { code: 'not-found' });
  });
});

describe('across businesses and surfaces', () => {
  test("another business's folders, rules and invoices are not-found", async () => {
    const mine = await freshBusiness();
    const theirs = await freshBusiness();
    const f = await mine.call('folderCreate', { name: 'Mine' });
    const r = (await mine.call('folderRuleSave', rule(f.id, {}))).rule;
    const d = await addDoc({ source: 'supplier', paymentId: 'p9', fileId: 'f9' }, mine.user);
    const nf = { code: 'not-found' };
    await assert.rejects(theirs.call('folderRename', { id: f.id, name: 'x' }), nf);
    await assert.rejects(theirs.call('folderMove', { id: f.id, parentId: '' }), nf);
    await assert.rejects(theirs.call('folderCreate', { name: 'x', parentId: f.id }), nf);
    await assert.rejects(theirs.call('folderDelete', { id: f.id }), nf);
    await assert.rejects(theirs.call('invoiceSetFolder', { folderId: 'general', docId: d.docId }), nf);
    await assert.rejects(theirs.call('invoiceSetFolder', { folderId: 'general', paymentId: 'p9', fileId: 'f9' }), nf);
    await assert.rejects(theirs.call('invoiceSetFolder', { folderId: f.id, docId: d.docId }), nf);
    await assert.rejects(theirs.call('folderRuleSave', rule(f.id, {})), nf);
    await assert.rejects(theirs.call('folderRuleSave', { id: r.id, ...rule('general', {}) }), nf);
    await assert.rejects(theirs.call('folderRuleApply', { id: r.id }), nf);
    await assert.rejects(theirs.call('folderRuleDelete', { id: r.id }), nf);
    await assert.rejects(theirs.call('folderRuleReorder', { ids: [r.id] }), { code: 'invalid-argument' });
    assert.equal((await theirs.call('foldersList')).folders.length, 2);
    assert.equal((await theirs.call('folderSync')).filed, 0);
    assert.deepEqual(await placementOf(d.docId, mine.user), ['', 'default', null]);
  });

  test('mutations leave activity rows with their target ids', async () => {
    const { call } = await freshBusiness();
    const f = await call('folderCreate', { name: 'Logged' });
    await call('folderRename', { id: f.id, name: 'Logged 2' });
    const r = (await call('folderRuleSave', rule(f.id, {}))).rule;
    await call('folderDelete', { id: f.id });
    const items = (await call('listActivity')).items;
    const byOp = (op: string) => items.find((i: any) => i.operation === op);
    assert.deepEqual(byOp('folderCreate').targetIds, [f.id]);
    assert.match(byOp('folderCreate').summary, /Logged/);
    assert.deepEqual(byOp('folderRename').targetIds, [f.id]);
    assert.deepEqual(byOp('folderRuleSave').targetIds, [r.id, f.id]);
    assert.deepEqual(byOp('folderDelete').targetIds, [f.id, 'general']);
  });

  test('over HTTP: GET foldersList, POST folderCreate, and the error envelope of a cycle', async () => {
    const { user } = await freshBusiness();
    const origin = await h.listen();
    const created = await post(origin, '/v1/folderCreate', { name: 'Over HTTP' }, user.apiKey);
    assert.equal(created.status, 200);
    const child = await post(origin, '/v1/folderCreate', { name: 'Child', parentId: created.body.result.id }, user.apiKey);
    const listed = await get(origin, '/v1/foldersList', user.apiKey);
    assert.equal(listed.status, 200);
    assert.ok(listed.body.result.folders.some((f: any) => f.id === created.body.result.id));
    const cycle = await post(origin, '/v1/folderMove', { id: created.body.result.id, parentId: child.body.result.id }, user.apiKey);
    assert.equal(cycle.status, 400);
    assert.equal(cycle.body.ok, false);
    assert.equal(cycle.body.error.code, 'invalid-argument');
    assert.match(cycle.body.error.message, /^parentId: /);
    const rules = await get(origin, '/v1/folderRulesList', user.apiKey);
    assert.deepEqual(rules.body, { ok: true, result: { rules: [] } });
    const del = await get(origin, '/v1/folderDelete?id=x', user.apiKey);
    assert.equal(del.status, 405, 'dangerous operations are POST only');
  });
});
