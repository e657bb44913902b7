import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultFolder, fileDocument, matchRule, whenSchema, type FileableDoc, type FolderRuleRecord, type RuleWhen } from '../../../functions/src/domain/invoices/folderRules.ts';
import type { InvoiceReading, MailboxOrigin } from '../../../functions/src/domain/invoices/invoices.ts';

const reading = (over: Partial<InvoiceReading> = {}): InvoiceReading => ({
  issuer: { name: 'Acme Cloud Ltd', vatId: '514000001', email: 'billing@acme.example', phone: null },
  docType: 'tax_invoice',
  number: '1001',
  date: '2026-01-15',
  totalMinor: 12_345,
  currency: 'ILS',
  vatMinor: 1_800,
  payMethod: 'bank_transfer',
  cardEnding: null,
  lineItems: [],
  bank: null,
  allocationNumber: null,
  ...over,
});

const mail = (over: Partial<MailboxOrigin> = {}): MailboxOrigin => ({
  accountId: 'mbx1',
  from: 'Billing <Billing@Acme.example>',
  subject: 'Your January Invoice',
  receivedAt: '2026-01-15T10:00:00.000Z',
  messageId: '<m1@acme.example>',
  body: false,
  ...over,
});

const doc = (over: Partial<FileableDoc> = {}): FileableDoc => ({
  source: 'upload',
  mailbox: null,
  fileName: 'invoice-1001.pdf',
  reading: reading(),
  category: 'hosting_cloud',
  supplierKey: 'billing@acme.example',
  supplierName: 'Acme Cloud',
  vendorKey: 'vat:514000001',
  ...over,
});

const fromMail = (over: Partial<FileableDoc> = {}) => doc({ source: 'mailbox', mailbox: mail(), ...over });
const when = (w: Partial<RuleWhen>): RuleWhen => whenSchema.parse(w);
const rule = (id: string, w: Partial<RuleWhen>, over: Partial<FolderRuleRecord> = {}): FolderRuleRecord => ({
  id,
  when: when(w),
  folderId: `f-${id}`,
  bodyInvoice: false,
  enabled: true,
  order: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  applyCursor: '',
  ...over,
});
const matches = (w: Partial<RuleWhen>, d: FileableDoc) => matchRule({ when: when(w) }, d);

test('a rule with no conditions matches everything', () => {
  assert.equal(matches({}, doc()), true);
  assert.equal(matches({}, doc({ reading: null })), true);
});

test('from: a case-insensitive part of the sender, and only on documents from a mailbox', () => {
  assert.equal(matches({ from: 'billing@acme.EXAMPLE' }, fromMail()), true);
  assert.equal(matches({ from: '@acme.example' }, fromMail()), true);
  assert.equal(matches({ from: 'other.example' }, fromMail()), false);
  assert.equal(matches({ from: 'acme' }, doc()), false, 'an upload never matches a mail condition');
});

test('subject and accountId are mail conditions too', () => {
  assert.equal(matches({ subject: 'january invoice' }, fromMail()), true);
  assert.equal(matches({ subject: 'february' }, fromMail()), false);
  assert.equal(matches({ subject: 'invoice' }, doc()), false);
  assert.equal(matches({ accountId: 'mbx1' }, fromMail()), true);
  assert.equal(matches({ accountId: 'mbx2' }, fromMail()), false);
  assert.equal(matches({ accountId: 'mbx1' }, doc({ source: 'supplier' })), false);
});

test('words: any of the words in the mail subject, file name, note, issuer name or line items; every source', () => {
  assert.equal(matches({ words: 'receipt JANUARY' }, fromMail()), true, 'subject');
  assert.equal(matches({ words: 'nothing 1001.pdf' }, fromMail()), true, 'file name');
  assert.equal(matches({ words: 'zzz cloud' }, fromMail()), true, 'issuer name');
  assert.equal(matches({ words: 'zzz yyy' }, fromMail()), false);
  assert.equal(matches({ words: 'cloud' }, doc()), true, 'an upload, by issuer name');
  assert.equal(matches({ words: 'invoice-1001' }, doc({ source: 'supplier' })), true, 'a supplier attachment, by file name');
  const withItems = doc({ reading: reading({ lineItems: [{ description: 'Toner cartridge', quantity: 2, totalMinor: 9_000 }] }) });
  assert.equal(matches({ words: 'TONER' }, withItems), true, 'line item');
  assert.equal(matches({ words: 'toner' }, doc()), false);
  assert.equal(matches({ words: 'הדפסה' }, doc({ note: 'עבור הדפסה במשרד' })), true, 'note');
  assert.equal(matches({ words: 'cloud' }, doc({ reading: null, fileName: 'scan.pdf' })), false, 'nothing read, nothing in the name');
  assert.equal(matches({ from: 'acme', words: 'cloud' }, doc()), false, 'from stays mail-only');
});

test('notWords: none of the words may appear; applies to every source', () => {
  assert.equal(matches({ notWords: 'refund' }, doc()), true);
  assert.equal(matches({ notWords: 'refund ACME' }, doc()), false);
  assert.equal(matches({ notWords: 'january' }, fromMail()), false);
  assert.equal(matches({ words: 'invoice', notWords: 'february' }, fromMail()), true);
  assert.equal(matches({ notWords: 'toner' }, doc({ reading: reading({ lineItems: [{ description: 'Toner', quantity: 1, totalMinor: 100 }] }) })), false, 'line item');
  assert.equal(matches({ notWords: 'private' }, doc({ note: 'Private purchase' })), false, 'note');
});

test('supplier: the supplier key or issuer key, or part of the supplier or issuer name', () => {
  assert.equal(matches({ supplier: 'Billing@Acme.example' }, doc()), true);
  assert.equal(matches({ supplier: 'vat:514000001' }, doc()), true);
  assert.equal(matches({ supplier: 'acme cloud' }, doc()), true);
  assert.equal(matches({ supplier: 'acme' }, doc({ supplierName: '', reading: reading({ issuer: { name: 'ACME Ltd', vatId: null, email: null, phone: null } }) })), true);
  assert.equal(matches({ supplier: 'globex' }, doc()), false);
  assert.equal(matches({ supplier: 'acme' }, doc({ supplierKey: null, supplierName: '', vendorKey: null, reading: null })), false);
});

test('amount is in major units against the total in minor units; gt and lt are strict', () => {
  assert.equal(matches({ amountOp: 'gt', amount: 100 }, doc()), true); // 123.45
  assert.equal(matches({ amountOp: 'gt', amount: 123.45 }, doc()), false);
  assert.equal(matches({ amountOp: 'lt', amount: 123.46 }, doc()), true);
  assert.equal(matches({ amountOp: 'lt', amount: 123.45 }, doc()), false);
  assert.equal(matches({ amountOp: 'gt', amount: 0 }, doc({ reading: reading({ totalMinor: null }) })), false, 'no total, no match');
  assert.equal(matches({ amountOp: '', amount: 999_999 }, doc()), true, 'amount alone is no condition');
});

test('currency, docType, payMethod, category and source compare exactly', () => {
  assert.equal(matches({ currency: 'ILS' }, doc()), true);
  assert.equal(matches({ currency: 'USD' }, doc()), false);
  assert.equal(matches({ docType: 'tax_invoice' }, doc()), true);
  assert.equal(matches({ docType: 'receipt' }, doc()), false);
  assert.equal(matches({ docType: 'receipt' }, doc({ reading: null })), false);
  assert.equal(matches({ payMethod: 'bank_transfer' }, doc()), true);
  assert.equal(matches({ payMethod: 'card' }, doc()), false);
  assert.equal(matches({ category: 'hosting_cloud' }, doc()), true);
  assert.equal(matches({ category: 'rent' }, doc()), false);
  assert.equal(matches({ source: 'upload' }, doc()), true);
  assert.equal(matches({ source: 'supplier' }, doc()), false);
  assert.equal(matches({ source: 'supplier' }, doc({ source: 'supplier' })), true);
  assert.equal(matches({ source: 'mailbox' }, fromMail()), true);
});

test('every set condition must hold', () => {
  const w = { from: 'acme', currency: 'ILS' as const, amountOp: 'gt' as const, amount: 50 };
  assert.equal(matches(w, fromMail()), true);
  assert.equal(matches({ ...w, currency: 'EUR' }, fromMail()), false);
  assert.equal(matches({ ...w, amount: 500 }, fromMail()), false);
});

test('fileDocument: the first enabled matching rule in priority order wins', () => {
  const rules = [rule('late', { currency: 'ILS' }, { order: 5 }), rule('early', { supplier: 'acme' }, { order: 1 }), rule('never', { currency: 'USD' }, { order: 0 })];
  assert.deepEqual(fileDocument(rules, doc()), { folderId: 'f-early', folderBy: 'rule', folderRuleId: 'early' });
  rules[1].enabled = false;
  assert.deepEqual(fileDocument(rules, doc()), { folderId: 'f-late', folderBy: 'rule', folderRuleId: 'late' });
  rules[1].enabled = true;
  rules[1].order = 9;
  assert.equal(fileDocument(rules, doc()).folderRuleId, 'late');
});

test('fileDocument: a bodyInvoice rule without a folder never places a document', () => {
  const rules = [rule('body', {}, { folderId: '', bodyInvoice: true }), rule('next', {}, { order: 1 })];
  assert.equal(fileDocument(rules, fromMail()).folderRuleId, 'next');
  assert.deepEqual(fileDocument([rules[0]], fromMail()), { folderId: 'general', folderBy: 'default', folderRuleId: null });
});

test('default placement: the card folder for a card ending, petty cash for cash, otherwise general', () => {
  assert.equal(defaultFolder(doc({ reading: reading({ payMethod: 'card', cardEnding: '4242' }) })), 'card-4242');
  assert.equal(defaultFolder(doc({ reading: reading({ payMethod: null, cardEnding: '4242' }) })), 'card-4242');
  assert.equal(defaultFolder(doc({ reading: reading({ payMethod: 'bank_transfer', cardEnding: '4242' }) })), 'general');
  assert.equal(defaultFolder(doc({ reading: reading({ payMethod: 'cash' }) })), 'petty-cash');
  assert.equal(defaultFolder(doc({ reading: null })), 'general');
  assert.deepEqual(fileDocument([], doc({ reading: reading({ payMethod: 'card', cardEnding: '0001' }) })), { folderId: 'card-0001', folderBy: 'default', folderRuleId: null });
});

test('fileDocument is pure: it does not reorder the caller\'s rules', () => {
  const rules = [rule('b', {}, { order: 2 }), rule('a', {}, { order: 1 })];
  fileDocument(rules, doc());
  assert.deepEqual(rules.map((r) => r.id), ['b', 'a']);
});
