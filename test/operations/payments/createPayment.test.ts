import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mailText } from '../../fakes/smtp.ts';
import { post } from '../../http.ts';
import { sha256 } from '../../../functions/src/core/ids.ts';
import { suppliersPath } from '../../../functions/src/domain/payments/suppliers.ts';
import { activityPath } from '../../../functions/src/core/activity.ts';
import { createPayment, countDocs, deliver, outbox, paymentInput, paymentsEnv, PDF, PUBLIC_LINK_BASE, stored, tokenOf, type PaymentsEnv } from './helpers.ts';

let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

const linkRe = new RegExp(`^${PUBLIC_LINK_BASE.replaceAll('.', '\\.')}/pay/[A-Za-z0-9_-]{43}$`);

test('a payment with a phone starts sent, keyed by the E.164 phone, and goes by WhatsApp template with the link', async () => {
  const { h, wa } = env;
  const p = await createPayment(h, { supplierPhone: '050-123-4567' });
  assert.equal(p.status, 'sent');
  assert.equal(p.supplierPhone, '+972501234567');
  assert.equal(p.supplierEmail, null);
  assert.equal(p.supplierKey, '+972501234567');
  assert.equal(p.channel, 'wa');
  assert.match(p.link, linkRe);
  assert.equal(p.sentAt, p.createdAt);
  const before = wa.accepted.length;
  await deliver(env);
  const sent = wa.accepted.slice(before);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].to, '972501234567');
  assert.equal(sent[0].template.name, 'payment_request');
  const button = sent[0].template.components.find((c: any) => c.type === 'button') as any;
  assert.equal(button.sub_type, 'url');
  assert.deepEqual(button.parameters, [{ type: 'text', text: `pay/${tokenOf(p.link)}` }]);
  const body = sent[0].template.components.find((c: any) => c.type === 'body') as any;
  assert.equal(body.parameters[0].text, 'Test Business');
  assert.match(body.parameters[1].text, /₪123\.45/);
  assert.equal(body.parameters[2].text, 'Kitchen renovation');
  const [record] = (await outbox(h)).filter((r) => r.to === '+972501234567');
  assert.equal(record.status, 'delivered');
});

test('a payment with an email goes by email with the link; the email is lower-cased and is the key', async () => {
  const { h, smtp, wa } = env;
  const was = wa.accepted.length;
  const mails = smtp.mails.length;
  const p = await createPayment(h, { supplierPhone: undefined, supplierEmail: ' Dana@Example.COM ' });
  assert.equal(p.supplierEmail, 'dana@example.com');
  assert.equal(p.supplierPhone, null);
  assert.equal(p.supplierKey, 'dana@example.com');
  assert.equal(p.channel, 'em');
  await deliver(env, { mails: mails + 1 });
  const mail = smtp.mails.at(-1)!;
  assert.deepEqual(mail.to, ['dana@example.com']);
  assert.ok(mailText(mail.raw).includes(p.link), 'the email carries the link');
  assert.equal(wa.accepted.length, was, 'no WhatsApp without a phone');
});

test('with both contacts the link goes both ways; the phone is the key', async () => {
  const { h, smtp, wa } = env;
  const was = wa.accepted.length;
  const mails = smtp.mails.length;
  const p = await createPayment(h, { supplierPhone: '+972 52-555-1234', supplierEmail: 'both@example.com' });
  assert.equal(p.supplierKey, '+972525551234');
  assert.equal(p.channel, 'wa');
  await deliver(env, { mails: mails + 1 });
  assert.equal(wa.accepted.length, was + 1);
  assert.equal(wa.accepted.at(-1)!.to, '972525551234');
  assert.deepEqual(smtp.mails.at(-1)!.to, ['both@example.com']);
  assert.ok(mailText(smtp.mails.at(-1)!.raw).includes(p.link));
});

test('channel link delivers nothing and still starts sent', async () => {
  const { h, smtp, wa } = env;
  const staged = (await outbox(h)).length;
  const was = wa.accepted.length;
  const mails = smtp.mails.length;
  const p = await createPayment(h, { supplierEmail: 'self@example.com', channel: 'link' });
  assert.equal(p.status, 'sent');
  assert.equal(p.channel, 'link');
  assert.equal(p.sentAt, null);
  assert.match(p.link, linkRe);
  assert.equal((await outbox(h)).length, staged, 'nothing staged');
  await deliver(env);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(wa.accepted.length, was);
  assert.equal(smtp.mails.length, mails);
});

test('defaults: ILS, no invoice required, free choice of payout; both methods are stored as free choice', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  assert.equal(p.currency, 'ILS');
  assert.equal(p.invoiceRequired, false);
  assert.equal(p.openAmount, false);
  assert.deepEqual(p.payMethods, []);
  assert.deepEqual((await createPayment(h, { channel: 'link', payMethods: ['bit', 'bank'] })).payMethods, []);
  assert.deepEqual((await createPayment(h, { channel: 'link', payMethods: ['bit', 'bit'] })).payMethods, ['bit']);
  const usd = await createPayment(h, { channel: 'link', currency: 'USD', invoiceRequired: true });
  assert.equal(usd.currency, 'USD');
  assert.equal(usd.invoiceRequired, true);
});

test('openAmount needs amountAgorot 0; otherwise the amount is a positive integer', async () => {
  const { h } = env;
  const open = await createPayment(h, { channel: 'link', openAmount: true, amountAgorot: 0 });
  assert.equal(open.openAmount, true);
  assert.equal(open.amountAgorot, 0);
  await assert.rejects(createPayment(h, { openAmount: true, amountAgorot: 500 }), { code: 'invalid-argument', message: /^amountAgorot: must be 0 when openAmount/ });
  await assert.rejects(createPayment(h, { amountAgorot: 0 }), { code: 'invalid-argument', message: /^amountAgorot: must be a positive integer/ });
  await assert.rejects(createPayment(h, { amountAgorot: -5 }), { code: 'invalid-argument', message: /^amountAgorot:/ });
  await assert.rejects(createPayment(h, { amountAgorot: 10.5 }), { code: 'invalid-argument', message: /^amountAgorot: expected an integer/ });
});

test('a refused create writes nothing: bad phone, bad email, no contact, unknown invoice document', async () => {
  const { h } = env;
  const b = h.owner.businessId;
  const counts = async () => [
    await countDocs(h, `businesses/${b}/payments`),
    await countDocs(h, `businesses/${b}/suppliers`),
    await countDocs(h, `businesses/${b}/outbox`),
    await countDocs(h, 'supplierLinks'),
    await countDocs(h, `businesses/${b}/activity`),
  ];
  const start = await counts();
  await assert.rejects(createPayment(h, { supplierPhone: '12' }), { code: 'invalid-argument', message: /^supplierPhone: "12" is not a valid phone/ });
  await assert.rejects(createPayment(h, { supplierPhone: undefined, supplierEmail: 'nope@' }), { code: 'invalid-argument', message: /^supplierEmail:/ });
  await assert.rejects(createPayment(h, { supplierPhone: undefined }), { code: 'invalid-argument', message: /supplierPhone or a supplierEmail is required/ });
  await assert.rejects(createPayment(h, { supplierPhone: '', supplierEmail: '  ' }), { code: 'invalid-argument', message: /is required/ });
  await assert.rejects(createPayment(h, { invoiceDocId: 'missing-doc' }), { code: 'not-found', message: /^invoiceDocId: invoice document missing-doc not found/ });
  await assert.rejects(createPayment(h, { invoiceDocId: 'a/b' }), { code: 'invalid-argument', message: /^invoiceDocId: not a valid id/ });
  assert.deepEqual(await counts(), start);
});

test('records the supplier (created, then counted) and the global link record, in the same transaction', async () => {
  const { h } = env;
  const a = await createPayment(h, { supplierPhone: '0541112222', supplierName: 'Avi Levi', channel: 'link' });
  const s1 = (await h.app.services.store.get(suppliersPath(h.owner.businessId, '+972541112222')))!.data;
  assert.equal(s1.paymentCount, 1);
  assert.equal(s1.name, 'Avi Levi');
  await createPayment(h, { supplierPhone: '+972541112222', supplierName: 'Avi Levi', channel: 'link' });
  const s2 = (await h.app.services.store.get(suppliersPath(h.owner.businessId, '+972541112222')))!.data;
  assert.equal(s2.paymentCount, 2);
  const link = await h.app.services.store.get(`supplierLinks/${sha256(tokenOf(a.link))}`);
  assert.deepEqual(link?.data, { businessId: h.owner.businessId, paymentId: a.id });
  const rec = await stored(h, a.id);
  assert.equal(rec.linkToken, tokenOf(a.link));
  assert.ok(rec.search.includes('avi') && rec.search.includes('kitchen'), 'search tokens written');
});

test('invoiceDocId copies the uploaded document onto the payment, as a file of its own', async () => {
  const { h } = env;
  const b = h.owner.businessId;
  const file = await h.app.services.files.save(b, { fileName: 'inv-77.pdf', contentType: 'application/pdf', bytes: PDF });
  await h.app.services.store.set(`businesses/${b}/invoices/doc77`, {
    docId: 'doc77',
    fileId: file.fileId,
    fileName: 'inv-77.pdf',
    contentType: 'application/pdf',
    size: PDF.length,
    sha256: 'abc',
    createdAt: '2026-01-02T03:04:05.000Z',
    reading: { number: 'INV-77' },
  });
  const p = await createPayment(h, { channel: 'link', invoiceDocId: 'doc77' });
  assert.equal(p.invoices.length, 1);
  assert.equal(p.invoices[0].fileName, 'inv-77.pdf');
  assert.equal(p.invoices[0].contentType, 'application/pdf');
  assert.equal(p.invoices[0].size, PDF.length);
  assert.notEqual(p.invoices[0].fileId, file.fileId, 'a copy, not the document\'s file');
  assert.deepEqual(p.invoice, { fileName: 'inv-77.pdf', url: p.invoices[0].url });
  assert.equal(p.invoiceNumber, 'INV-77');
  assert.equal((await stored(h, p.id)).invoices[0].sha256, 'abc');
  // Deleting the document's file leaves the payment's copy readable.
  await h.app.services.files.remove(b, file.fileId);
  assert.deepEqual(await h.app.services.files.read(b, p.invoices[0].fileId), PDF);
  // Another business cannot name this document.
  const other = await h.newBusiness('Other');
  await assert.rejects(createPayment(h, { channel: 'link', invoiceDocId: 'doc77' }, other), { code: 'not-found' });
});

test('writes an activity row without contacts or the link secret', async () => {
  const { h } = env;
  const p = await createPayment(h, { supplierName: 'Activity Check', supplierPhone: '0509998877', channel: 'link' });
  const rows = await h.app.services.store.query({ collection: activityPath(h.owner.businessId), orderBy: [['at', 'desc']], limit: 1 });
  const row = rows[0].data;
  assert.equal(row.operation, 'createPayment');
  assert.deepEqual(row.targetIds, [p.id]);
  assert.match(String(row.summary), /Activity Check/);
  assert.doesNotMatch(String(row.summary), /9998877|pay\//);
  assert.ok(!String(row.summary).includes(tokenOf(p.link)));
});

test('works over HTTP, with validation errors naming the field', async () => {
  const { h } = env;
  const origin = await h.listen();
  const ok = await post(origin, '/v1/createPayment', paymentInput({ supplierEmail: 'http@example.com' }), h.owner.apiKey);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.ok, true);
  assert.equal(ok.body.result.status, 'sent');
  assert.equal(ok.body.result.supplierKey, '+972501234567');
  const bad = await post(origin, '/v1/createPayment', { ...paymentInput(), currency: 'GBP' }, h.owner.apiKey);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid-argument');
  assert.match(bad.body.error.message, /^currency:/);
  const missing = await post(origin, '/v1/createPayment', { vatIncluded: true }, h.owner.apiKey);
  assert.equal(missing.status, 400);
  assert.match(missing.body.error.message, /amountAgorot: is required/);

  // And as an MCP tool, through the official client.
  const client = new Client({ name: 'payments-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${h.owner.apiKey}` } } }));
  try {
    const res = await client.callTool({ name: 'createPayment', arguments: paymentInput({ channel: 'link', supplierName: 'Via MCP' }) });
    assert.notEqual(res.isError, true, JSON.stringify(res));
    const created = res.structuredContent as any;
    assert.equal(created.supplierName, 'Via MCP');
    assert.equal(created.status, 'sent');
    assert.equal((await stored(h, created.id)).channel, 'link');
  } finally {
    await client.close();
  }
});

test('a landline cannot get the link by WhatsApp: refused naming the phone, nothing written; email and "link" still work', async () => {
  const { h } = env;
  const b = h.owner.businessId;
  const before = [await countDocs(h, `businesses/${b}/payments`), await countDocs(h, `businesses/${b}/outbox`)];
  await assert.rejects(createPayment(h, { supplierPhone: '03-1234567' }), {
    code: 'invalid-argument',
    message: /^supplierPhone: \+97231234567 is a landline, and WhatsApp needs a mobile number; send the link by email/,
  });
  await assert.rejects(createPayment(h, { supplierPhone: '1-800-123-456' }), { code: 'invalid-argument', message: /^supplierPhone: .* is not a mobile number/ });
  assert.deepEqual([await countDocs(h, `businesses/${b}/payments`), await countDocs(h, `businesses/${b}/outbox`)], before);

  const byEmail = await createPayment(h, { supplierPhone: undefined, supplierEmail: 'landline-owner@example.com' });
  assert.equal((await stored(h, byEmail.id)).channel, 'em');
  const shared = await createPayment(h, { supplierPhone: '03-1234567', channel: 'link' });
  assert.equal(shared.supplierPhone, '+97231234567');
  // Turning that payment to WhatsApp later is refused the same way.
  await assert.rejects(h.call('resendPayment', { paymentId: shared.id, channel: 'wa' }), { code: 'invalid-argument', message: /^channel: \+97231234567 is a landline/ });
  await assert.rejects(h.call('updatePaymentSettings', { paymentId: shared.id, channel: 'wa' }), { code: 'invalid-argument', message: /^channel: \+97231234567 is a landline/ });
  assert.equal((await stored(h, shared.id)).channel, 'link');
});

test('a decimal amount says to send agorot; a misspelt field names the one meant and the valid ones', async () => {
  const { h } = env;
  await assert.rejects(createPayment(h, { amountAgorot: 12.5 }), { code: 'invalid-argument', message: /^amountAgorot: expected an integer: amounts are in agorot .*e\.g\. 1250 for 12\.50/ });
  const typo = await createPayment(h, { amountAgorot: undefined, amountAgorat: 1250 }).catch((e) => e);
  assert.equal(typo.code, 'invalid-argument');
  assert.match(typo.message, /amountAgorat: unknown field \(did you mean amountAgorot\?\); valid fields: amountAgorot, vatIncluded, noVat, description, supplierName/);
  // Over HTTP the same message reaches the caller.
  const origin = await h.listen();
  const res = await post(origin, '/v1/createPayment', paymentInput({ supplierNmae: 'x' }), h.owner.apiKey);
  assert.equal(res.status, 400);
  assert.match(res.body.error.message, /^supplierNmae: unknown field \(did you mean supplierName\?\)/);
});
