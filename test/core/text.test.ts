import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freeTextProblem, sanitizeFileName } from '../../functions/src/core/text.ts';
import { invoicesEnv, upload, type InvoicesEnv } from '../operations/invoices/helpers.ts';

test('sanitizeFileName keeps the last path part, drops controls, bidi overrides and reserved characters, never returns "", "." or ".."', () => {
  assert.equal(sanitizeFileName('../../x.pdf'), 'x.pdf');
  assert.equal(sanitizeFileName('C:\\Users\\dana\\חשבונית 12.pdf'), 'חשבונית 12.pdf');
  assert.equal(sanitizeFileName('..', 'invoice.pdf'), 'invoice.pdf');
  assert.equal(sanitizeFileName('.', 'invoice.pdf'), 'invoice.pdf');
  assert.equal(sanitizeFileName('', 'invoice.pdf'), 'invoice.pdf');
  assert.equal(sanitizeFileName('inv\u202Efdp.exe'), 'invfdp.exe');
  assert.equal(sanitizeFileName('a\r\nBcc: evil@example.com.pdf'), 'aBcc evil@example.com.pdf');
  assert.equal(sanitizeFileName('.hidden.pdf'), 'hidden.pdf');
  const long = sanitizeFileName('x'.repeat(300) + '.pdf');
  assert.equal(long.length, 120);
  assert.ok(long.endsWith('.pdf'));
  assert.ok(sanitizeFileName('😀'.repeat(200) + '.pdf').isWellFormed());
});

test('the free-text rule: one line by default, a new line where it makes sense, never other controls or bidi overrides', () => {
  assert.equal(freeTextProblem('Dana Cohen', false), null);
  assert.match(freeTextProblem('Dana\r\nBcc: x', false)!, /control characters/);
  assert.equal(freeTextProblem('line 1\nline 2', true), null);
  assert.equal(freeTextProblem('line 1\r\nline 2', true), null);
  assert.match(freeTextProblem('tab\there', true)!, /control characters/);
  assert.match(freeTextProblem('abc\u202Edef', true)!, /bidirectional/);
  assert.equal(freeTextProblem('שלום\u200F', false), null, 'a right-to-left mark is fine');
});

let env: InvoicesEnv;
before(async () => (env = await invoicesEnv()));
after(() => env.close());

test('uploads keep only a safe name: path parts are gone and a ".." name still gets a working link', async () => {
  const doc = await upload(env, undefined, { fileName: '../../x.pdf' });
  assert.equal(doc.fileName, 'x.pdf');
  const dots = await upload(env, undefined, { fileName: '..' });
  assert.notEqual(dots.fileName, '..');
  const view = await env.h.call('invoiceGet', { docId: dots.docId });
  const token = new URL(view.url).pathname.split('/')[2];
  const file = await env.h.app.services.files.open(token);
  assert.ok(file, 'the link resolves');
});

test('names, descriptions and notes refuse control characters and bidi overrides, naming the field; nothing is written', async () => {
  const { h } = env;
  const base = { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'Dana', supplierEmail: 'd@example.com', channel: 'link' };
  await assert.rejects(h.call('createPayment', { ...base, supplierName: 'Dana\r\nBcc: x@example.com' }), { code: 'invalid-argument', message: /^supplierName: control characters/ });
  await assert.rejects(h.call('createPayment', { ...base, supplierName: 'Dana\u202E' }), { code: 'invalid-argument', message: /^supplierName: bidirectional/ });
  await assert.rejects(h.call('createPayment', { ...base, description: 'a\u0007b' }), { code: 'invalid-argument', message: /^description: control characters/ });
  assert.equal((await h.call('paymentsList')).total, 0);
  const ok = await h.call('createPayment', { ...base, description: 'line one\nline two' });
  assert.equal(ok.description, 'line one\nline two');
  await assert.rejects(h.call('createSupplier', { name: 'A\nB', email: 'ab@example.com' }), { code: 'invalid-argument', message: /^name: control characters/ });
  await assert.rejects(h.call('folderCreate', { name: 'F\u0000' }), { code: 'invalid-argument', message: /^name: control characters/ });
});
