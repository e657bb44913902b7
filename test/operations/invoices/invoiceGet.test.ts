import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, pdf, reading, uploadBody, type InvoicesEnv } from './helpers.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

test('returns the full document with its reading and a working download URL', async () => {
  const bytes = await pdf();
  env.ai.script(bytes, reading({ number: 'G-1', lineItems: [{ description: 'Paper', quantity: 2, totalMinor: 500 }], bank: { bankCode: '12', branch: '345', account: '678901', beneficiary: 'Acme' } }));
  const up = await env.h.call('uploadInvoiceDoc', uploadBody(bytes, { fileName: 'g.pdf', note: 'keep' }));
  const r = await env.h.call('invoiceGet', { docId: up.docId });
  assert.equal(r.docId, up.docId);
  assert.equal(r.reading.lineItems[0].description, 'Paper');
  assert.equal(r.reading.bank.beneficiary, 'Acme');
  assert.deepEqual([r.note, r.fileName, r.sha256, r.fileId], ['keep', 'g.pdf', up.sha256, up.fileId]);
  const token = new URL(r.url).pathname.split('/').at(-2)!;
  assert.ok((await env.h.app.services.files.open(token))?.bytes.equals(bytes));
  assert.equal('skipped' in r, false);
});

test('unknown and cross-business ids are not-found; a malformed id is invalid-argument', async () => {
  const up = await env.h.call('uploadInvoiceDoc', uploadBody(await pdf()));
  const other = await env.h.newBusiness('Other');
  await assert.rejects(env.h.call('invoiceGet', { docId: up.docId }, other), { code: 'not-found', message: /^docId: invoice document/ });
  await assert.rejects(env.h.call('invoiceGet', { docId: 'missing' }), { code: 'not-found' });
  await assert.rejects(env.h.call('invoiceGet', { docId: 'a/b' }), { code: 'invalid-argument', message: /^docId:/ });
  await assert.rejects(env.h.call('invoiceGet', {}), { code: 'invalid-argument', message: /^docId: is required/ });
});

test('the URL is null once the file is gone', async () => {
  const up = await env.h.call('uploadInvoiceDoc', uploadBody(await pdf()));
  await env.h.app.services.files.remove(env.h.owner.businessId, up.fileId);
  assert.equal((await env.h.call('invoiceGet', { docId: up.docId })).url, null);
});
