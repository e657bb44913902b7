import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { createHarness, type Harness } from '../../harness.ts';
import { connectMcp } from './client.ts';
import { invoicePdf } from '../../fakes/pdfs.ts';

/** The payments, suppliers and invoices operations as MCP tools, through the official client and the real server. */
let h: Harness;
let client: Client;
let call: Awaited<ReturnType<typeof connectMcp>>['call'];
before(async () => {
  h = await createHarness();
  const origin = await h.listen();
  ({ client, call } = await connectMcp(origin, h.owner.apiKey, 'domain-tools-test'));
});
after(async () => {
  await client.close();
  await h.close();
});

test('a payment request is created, listed, paid and its cancel tool is marked destructive', async () => {
  const created = await call('createPayment', { amountAgorot: 125000, vatIncluded: true, description: 'Logo design', supplierName: 'Dana Studio', supplierEmail: 'dana@example.com', channel: 'link' });
  assert.equal(created.isError, false);
  assert.equal(created.body.status, 'sent');
  const list = await call('paymentsList', { q: 'logo' });
  assert.deepEqual(list.body.items.map((p: any) => p.id), [created.body.id]);
  const paid = await call('markPaid', { paymentId: created.body.id });
  assert.equal(paid.body.status, 'paid');
  const refused = await call('cancelPayment', { paymentId: created.body.id });
  assert.equal(refused.isError, true);
  assert.equal(refused.body.code, 'failed-precondition');
  assert.match(refused.body.message, /paid/);
  const { tools } = await client.listTools();
  const cancel = tools.find((t) => t.name === 'cancelPayment')!;
  assert.equal(cancel.annotations?.destructiveHint, true);
  assert.equal(tools.find((t) => t.name === 'paymentsList')!.annotations?.readOnlyHint, true);
});

test('a supplier is created and its card read back', async () => {
  const created = await call('createSupplier', { name: 'Avi Electric', phone: '050-1234567' });
  assert.equal(created.body.key, '+972501234567');
  const card = await call('getSupplierContact', { supplierKey: '0501234567' });
  assert.equal(card.body.name, 'Avi Electric');
});

test('an invoice is uploaded (stored unread without AI), listed and filed into a folder', async () => {
  const pdf = await invoicePdf({ issuer: 'Acme Ltd', number: '42', total: '100.00' });
  const up = await call('uploadInvoiceDoc', { fileName: 'inv-42.pdf', mimeType: 'application/pdf', dataBase64: Buffer.from(pdf).toString('base64') });
  assert.equal(up.isError, false, JSON.stringify(up.body));
  assert.equal(up.body.readingStatus, 'unread');
  const folder = await call('folderCreate', { name: 'Studio' });
  await call('invoiceSetFolder', { folderId: folder.body.id, docId: up.body.docId });
  const list = await call('invoicesList', { folderId: folder.body.id });
  assert.deepEqual(list.body.items.map((d: any) => d.docId), [up.body.docId]);
  const bad = await call('uploadInvoiceDoc', { fileName: 'x.gif', mimeType: 'image/gif', dataBase64: 'R0lGODlh' });
  assert.equal(bad.isError, true);
  assert.equal(bad.body.code, 'invalid-argument');
  assert.match(bad.body.message, /^mimeType:/);
});
