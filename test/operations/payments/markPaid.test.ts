import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseMail } from '../../fakes/smtp.ts';
import { post } from '../../http.ts';
import { newSubmissionId, parseMajorAmount, submitPayout } from '../../../functions/src/domain/payments/supplierSubmission.ts';
import { objectStreamBombPdf, rssGrowth } from '../../core/bombs.ts';
import { engines } from '../../engines.ts';
import { countDocs, createPayment, deliver, fileToken, HEIC, JPEG, outbox, paymentsEnv, PDF, PNG, simulateSubmission, stored, WEBP, type PaymentsEnv } from './helpers.ts';

let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

const proofOf = (bytes: Buffer, mimeType: string, fileName = 'proof') => ({ fileName, mimeType, dataBase64: bytes.toString('base64') });
const filesCount = () => countDocs(env.h, `businesses/${env.h.owner.businessId}/files`);

test('marks a sent payment paid and tells the supplier on WhatsApp and by email', async () => {
  const { h, smtp, wa } = env;
  const p = await createPayment(h, { supplierPhone: '0521234567', supplierEmail: 'paid@example.com' });
  await deliver(env, { mails: 1 });
  const was = wa.accepted.length;
  const mails = smtp.mails.length;
  const paid = await h.call('markPaid', { paymentId: p.id });
  assert.equal(paid.status, 'paid');
  assert.ok(paid.paidAt);
  assert.equal(paid.proof, null);
  await deliver(env, { mails: mails + 1 });
  const message = wa.accepted.slice(was);
  assert.equal(message.length, 1);
  assert.equal(message[0].template.name, 'payment_paid');
  assert.equal(message[0].to, '972521234567');
  const mail = smtp.mails.at(-1)!;
  assert.deepEqual(mail.to, ['paid@example.com']);
  const parsed = await parseMail(mail.raw);
  assert.match(parsed.text ?? '', /\u2068Test Business\u2069 סימן את התשלום כשולם/);
  assert.match(parsed.text ?? '', /₪123\.45/);
});

test('works from every unpaid state, and refuses paid and canceled naming the status', async () => {
  const { h } = env;
  for (const status of ['ready', 'awaiting_invoice'] as const) {
    const p = await createPayment(h, { channel: 'link' });
    await simulateSubmission(h, p.id, status);
    assert.equal((await h.call('markPaid', { paymentId: p.id })).status, 'paid');
    await assert.rejects(h.call('markPaid', { paymentId: p.id }), { code: 'failed-precondition', message: /status is paid/ });
  }
  const c = await createPayment(h, { channel: 'link' });
  await h.call('cancelPayment', { paymentId: c.id });
  await assert.rejects(h.call('markPaid', { paymentId: c.id }), { code: 'failed-precondition', message: /status is canceled/ });
});

test('a proof file name keeps only its last path part, without controls or bidi overrides, and its link works', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  const paid = await h.call('markPaid', { paymentId: p.id, proof: proofOf(PDF, 'application/pdf', '../../\u202Efdp.exe\r\nאישור.pdf') });
  assert.equal(paid.proof.fileName, 'fdp.exeאישור.pdf');
  assert.ok(!paid.proof.url.includes('..'));
  const dots = await createPayment(h, { channel: 'link' });
  const named = await h.call('markPaid', { paymentId: dots.id, proof: proofOf(PDF, 'application/pdf', '..') });
  assert.ok(named.proof.fileName && named.proof.fileName !== '..');
  assert.ok((await h.app.services.files.open(fileToken(named.proof.url)))?.bytes.equals(PDF), 'the link resolves');
});

test('stores a PDF or image proof with a download link', async () => {
  const { h } = env;
  for (const [bytes, type] of [[PDF, 'application/pdf'], [PNG, 'image/png'], [JPEG, 'image/jpeg'], [WEBP, 'image/webp'], [HEIC, 'image/HEIC']] as const) {
    const p = await createPayment(h, { channel: 'link' });
    const paid = await h.call('markPaid', { paymentId: p.id, proof: proofOf(bytes, type, `proof.${type.split('/')[1]}`) });
    assert.equal(paid.proof.contentType, type.toLowerCase());
    assert.equal(paid.proof.size, bytes.length);
    const file = await h.app.services.files.open(fileToken(paid.proof.url));
    assert.ok(file?.bytes.equals(bytes), type);
    assert.equal((await stored(h, p.id)).proof!.sha256.length, 64);
  }
});

test('refuses a proof that is not a PDF or an image, checking the declared type and the bytes; nothing is stored', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  const files = await filesCount();
  const bad = (proof: unknown) => h.call('markPaid', { paymentId: p.id, proof });
  await assert.rejects(bad(proofOf(PDF, 'text/plain')), { code: 'invalid-argument', message: /^proof\.mimeType: "text\/plain" is not accepted/ });
  await assert.rejects(bad(proofOf(Buffer.from('MZ not really an exe'), 'application/pdf')), { code: 'invalid-argument', message: /^proof\.dataBase64: the bytes are not a PDF or an image/ });
  await assert.rejects(bad(proofOf(PNG, 'application/pdf')), { code: 'invalid-argument', message: /^proof\.dataBase64: the bytes are image\/png, not application\/pdf/ });
  await assert.rejects(bad(proofOf(Buffer.alloc(0), 'application/pdf')), { code: 'invalid-argument', message: /^proof\.dataBase64: the file is empty/ });
  await assert.rejects(bad({ fileName: 'x.pdf', mimeType: 'application/pdf', dataBase64: 'data:application/pdf;base64,AAAA' }), { code: 'invalid-argument', message: /^proof\.dataBase64:/ });
  await assert.rejects(bad({ fileName: 'x.pdf', mimeType: 'application/pdf' }), { code: 'invalid-argument', message: /^proof\.dataBase64: is required/ });
  assert.equal(await filesCount(), files);
  assert.equal((await stored(h, p.id)).status, 'sent');
});

test('refuses a proof over 5 MB once decoded', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  const big = Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024 + 1 - PDF.length)]);
  await assert.rejects(h.call('markPaid', { paymentId: p.id, proof: proofOf(big, 'application/pdf') }), { code: 'invalid-argument', message: /^proof\.dataBase64: the file is 5242881 bytes; at most 5 MB/ });
  const max = Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024 - PDF.length)]);
  assert.equal((await h.call('markPaid', { paymentId: p.id, proof: proofOf(max, 'application/pdf') })).proof.size, 5 * 1024 * 1024);
});

// Races decided by the store's transactions: Firestore's contend and retry unlike SQLite's, so both engines run them.
for (const engine of engines) {
  describe(`races on ${engine.name}`, { skip: engine.skip }, () => {
    let env: PaymentsEnv;
    before(async () => {
      env = await paymentsEnv(await engine.env());
    });
    after(() => env.close());
    const filesCount = () => countDocs(env.h, `businesses/${env.h.owner.businessId}/files`);

    test('two markPaid at once: exactly one wins, one paid message is staged, one proof file is kept', async () => {
      const { h } = env;
      const p = await createPayment(h, { supplierEmail: 'race@example.com', supplierPhone: undefined });
      const files = await filesCount();
      const before = (await outbox(h)).filter((r) => r.reason === 'markPaid').length;
      const results = await Promise.allSettled([
        h.call('markPaid', { paymentId: p.id, proof: proofOf(PDF, 'application/pdf', 'a.pdf') }),
        h.call('markPaid', { paymentId: p.id, proof: proofOf(PNG, 'image/png', 'b.png') }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      assert.equal(lost[0].reason.code, 'failed-precondition');
      assert.match(lost[0].reason.message, /status is paid/);
      const rec = await stored(h, p.id);
      assert.equal(rec.status, 'paid');
      assert.equal(rec.proof!.fileName, (won[0] as PromiseFulfilledResult<any>).value.proof.fileName);
      assert.equal((await outbox(h)).filter((r) => r.reason === 'markPaid').length - before, 1, 'one paid message');
      assert.equal(await filesCount(), files + 1, "the loser's proof file was removed");
    });

    test('markPaid against cancelPayment at once: exactly one wins and the state matches it', async () => {
      const { h } = env;
      for (let round = 0; round < 4; round++) {
        const p = await createPayment(h, { supplierEmail: `race${round}@example.com`, supplierPhone: undefined });
        const before = (await outbox(h)).filter((r) => r.reason === 'markPaid').length;
        const [paid, canceled] = await Promise.allSettled([h.call('markPaid', { paymentId: p.id }), h.call('cancelPayment', { paymentId: p.id })]);
        assert.equal([paid, canceled].filter((r) => r.status === 'fulfilled').length, 1);
        const rec = await stored(h, p.id);
        const staged = (await outbox(h)).filter((r) => r.reason === 'markPaid').length - before;
        if (paid.status === 'fulfilled') {
          assert.equal(rec.status, 'paid');
          assert.equal(rec.canceledAt, null);
          assert.equal(staged, 1);
          assert.match((canceled as PromiseRejectedResult).reason.message, /status is paid/);
        } else {
          assert.equal(rec.status, 'canceled');
          assert.equal(rec.paidAt, null);
          assert.equal(staged, 0);
          assert.equal(paid.reason.code, 'failed-precondition');
          assert.match(paid.reason.message, /status is canceled/);
        }
      }
    });
  });
}

test("another business's payment is not-found, and no file is stored for it", async () => {
  const { h } = env;
  const other = await h.newBusiness('Other');
  const theirs = await createPayment(h, { channel: 'link' }, other);
  const files = await filesCount();
  await assert.rejects(h.call('markPaid', { paymentId: theirs.id, proof: proofOf(PDF, 'application/pdf') }), { code: 'not-found' });
  assert.equal(await filesCount(), files);
  assert.equal((await stored(h, theirs.id, other.businessId)).status, 'sent');
});

test('works over HTTP with a proof, and records an activity row', async () => {
  const { h } = env;
  const origin = await h.listen();
  const p = await createPayment(h, { channel: 'link', supplierName: 'Http Supplier' });
  const res = await post(origin, '/v1/markPaid', { paymentId: p.id, proof: proofOf(JPEG, 'image/jpeg', 'receipt.jpg') }, h.owner.apiKey);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result.status, 'paid');
  assert.equal(res.body.result.proof.fileName, 'receipt.jpg');
  const again = await post(origin, '/v1/markPaid', { paymentId: p.id }, h.owner.apiKey);
  assert.equal(again.status, 400);
  assert.equal(again.body.error.code, 'failed-precondition');
  const [row] = await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/activity`, orderBy: [['at', 'desc']], limit: 1 });
  assert.equal(row.data.operation, 'markPaid');
  assert.match(String(row.data.summary), /Http Supplier .*with a proof/);
});


test('an open-amount payment cannot be marked paid before it has an amount; once set, it can', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link', openAmount: true, amountAgorot: 0 });
  await assert.rejects(h.call('markPaid', { paymentId: p.id }), { code: 'failed-precondition', message: /^amountAgorot: this open-amount payment has no amount yet/ });
  assert.equal((await stored(h, p.id)).status, 'sent');
  await h.call('updatePaymentSettings', { paymentId: p.id, amountAgorot: 5000 });
  assert.equal((await h.call('markPaid', { paymentId: p.id })).status, 'paid');
});

test('amounts are bounded: at most 1,000,000,000 agorot (₪10M) on create and update', async () => {
  const { h } = env;
  await assert.rejects(createPayment(h, { amountAgorot: 1_000_000_001 }), { code: 'invalid-argument', message: /^amountAgorot:/ });
  const p = await createPayment(h, { amountAgorot: 1_000_000_000, channel: 'link' });
  await assert.rejects(h.call('updatePaymentSettings', { paymentId: p.id, amountAgorot: 2 ** 53 }), { code: 'invalid-argument', message: /^amountAgorot:/ });
  await assert.rejects(h.call('updateBusiness', { priceList: [{ title: 'x', amountAgorot: 1_000_000_001 }] }), { code: 'invalid-argument', message: /^priceList\.0\.amountAgorot:/ });
  // The supplier page's typed open amount has the same bound.
  assert.equal(parseMajorAmount('10,000,000'), 1_000_000_000);
  assert.equal(parseMajorAmount('10,000,000.01'), null);
  const open = await createPayment(h, { channel: 'link', openAmount: true, amountAgorot: 0 });
  const token = new URL(open.link).pathname.split('/').pop()!;
  const payout = { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Dana Cohen' } as const;
  await assert.rejects(submitPayout(h.app.services, { token, submissionId: newSubmissionId(), payout, amount: '99,999,999,999' }), (e: any) => e.problems?.amount === 'amount');
  assert.equal((await stored(h, open.id)).amountAgorot, 0);
});

test('a PDF proof that is a decompression bomb is refused naming the file: nothing stored, the payment stays sent, memory flat', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  const files = await filesCount();
  const bomb = await objectStreamBombPdf(700);
  const { growthMb, result } = await rssGrowth(() => h.call('markPaid', { paymentId: p.id, proof: proofOf(bomb, 'application/pdf', 'receipt.pdf') }));
  assert.equal(result.status, 'rejected');
  const e = (result as PromiseRejectedResult).reason;
  assert.equal(e.code, 'invalid-argument');
  assert.match(e.message, /^proof\.dataBase64: receipt\.pdf: the PDF expands to more than 128 MB/);
  assert.ok(growthMb < 200, `RSS grew ${growthMb.toFixed(0)} MB`);
  assert.equal(await filesCount(), files);
  assert.equal((await stored(h, p.id)).status, 'sent');
});
