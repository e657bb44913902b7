import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { engines } from '../../engines.ts';
import { HEADER, ITEM, readText, records, TRAILER, type Table } from '../../domain/payruns/masavLayout.ts';
import { get, post } from '../../http.ts';
import { jerusalemDay } from '../../../functions/src/core/clock.ts';
import { businessPath } from '../../../functions/src/domain/business.ts';
import { approvalBasis } from '../../../functions/src/domain/payments/approvals.ts';
import { paymentsPath, type Payout } from '../../../functions/src/domain/payments/payments.ts';
import { paymentAmounts } from '../../../functions/src/domain/vat.ts';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { countDocs, createPayment, fileToken, outbox, paymentsEnv, stored, type PaymentsEnv } from '../payments/helpers.ts';

function parse(rec: Buffer, table: Table): Record<string, string> & { raw: Record<string, Buffer> } {
  const out: Record<string, string> = {};
  const raw: Record<string, Buffer> = {};
  for (const [k, at, len] of table) {
    raw[k] = rec.subarray(at - 1, at - 1 + len);
    out[k] = raw[k].toString('latin1');
  }
  return Object.assign(out, { raw }) as Record<string, string> & { raw: Record<string, Buffer> };
}
/** A CSV's data rows as cells (these files hold no quoted commas). */
const csvRows = (b: Buffer) => b.subarray(3).toString('utf8').trimEnd().split('\r\n').slice(1).map((l) => l.split(','));
const agorot = (cell: string) => Math.round(Number(cell) * 100);
const yymmdd = (d: string) => d.slice(2).replace(/-/g, '');

const BANK_A: Payout = { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '123456', bankBeneficiary: 'דני כהן' };
const BANK_B: Payout = { method: 'bank', bankCode: '10', bankBranch: '9', bankAccount: '987654321' };
const BIT: Payout = { method: 'bit', bitPhone: '0501234567' };
const IBAN: Payout = { method: 'bank', iban: 'DE89 3704 0044 0532 0130 00', swift: 'COBADEFFXXX', bankName: 'Commerzbank', bankCountry: 'DE', bankBeneficiary: 'Müller GmbH' };

for (const engine of engines) {
  describe(`payment runs on ${engine.name}`, { skip: engine.skip }, () => {
    let env: PaymentsEnv;
    let h: Harness;
    before(async () => {
      env = await paymentsEnv(await engine.env());
      h = env.h;
      await h.call('updateBusiness', { masavInstitutionId: '12345678', masavSenderId: '54321', businessName: 'מאפיית הגליל' });
    });
    after(() => env.close());

    /** A payment the supplier finished: ready, with payout details (and whatever record fields `extra` sets). */
    async function ready(over: Record<string, unknown> = {}, payout: Payout | null = BANK_A, extra: Record<string, unknown> = {}, user?: TestUser) {
      const p = await createPayment(h, { channel: 'link', supplierPhone: undefined, supplierEmail: 'supplier@example.com', ...over }, user);
      const at = new Date().toISOString();
      await h.app.services.store.update(paymentsPath(user?.businessId ?? h.owner.businessId, p.id), { status: 'ready', payout, supplierSubmittedAt: at, readyAt: at, ...extra });
      return p as { id: string };
    }
    const bytesOf = async (url: string) => (await h.app.services.files.open(fileToken(url)))!.bytes;
    const setPolicy = (thresholdAgorot: number | null, businessId = h.owner.businessId) => h.app.services.store.update(businessPath(businessId), { approvalPolicy: { thresholdAgorot, approvalsRequired: 1 } });
    /** An admin's approval written as paymentApprove would, on the payment as it is now. */
    async function approve(paymentId: string) {
      const p = await stored(h, paymentId);
      await h.app.services.store.update(paymentsPath(h.owner.businessId, paymentId), { approvals: [{ by: 'another-admin', byEmail: 'a@example.com', at: new Date().toISOString(), basis: approvalBasis(p) }], rejection: null });
    }

    test('a run of 3 payments: the MASAV file parses back, field by field, to the payments; every total agrees to the agora', async () => {
      const a = await ready({ supplierName: 'Dani', amountAgorot: 123_450, vatIncluded: true }, BANK_A, { invoiceNumber: '7001' });
      const b = await ready({ supplierName: 'Acme Ltd.', amountAgorot: 10_000, vatIncluded: false }, BANK_B);
      const c = await ready({ supplierName: 'Bit Person', amountAgorot: 4_550, vatIncluded: true }, BIT);
      const run = await h.call('payRunCreate', { paymentIds: [a.id, b.id, c.id], note: 'November suppliers' });
      const bTotal = paymentAmounts(await stored(h, b.id)).totalAgorot;
      assert.ok(bTotal > 10_000, 'VAT added on top: the file pays the total');
      assert.equal(run.status, 'open');
      assert.equal(run.note, 'November suppliers');
      assert.deepEqual(run.items.map((i: any) => [i.paymentId, i.file, i.totalAgorot, i.currency, i.paymentStatus]), [
        [a.id, 'masav', 123_450, 'ILS', 'ready'],
        [b.id, 'masav', bTotal, 'ILS', 'ready'],
        [c.id, 'bit', 4_550, 'ILS', 'ready'],
      ]);
      assert.equal(run.items[0].payoutMasked, 'bank 12-345 ••••456');
      assert.deepEqual(run.totals, [{ currency: 'ILS', count: 3, totalAgorot: 123_450 + bTotal + 4_550 }]);
      assert.deepEqual(run.warnings, []);
      assert.deepEqual(run.files.map((f: any) => [f.kind, f.count]), [['masav', 2], ['portal', 2], ['bit', 1]]);
      for (const f of run.files) assert.ok(Date.parse(f.expiresAt) > Date.now() + 6 * 86_400_000, 'links live 7 days');
      for (const p of [a, b, c]) assert.equal((await stored(h, p.id)).runId, run.id);

      const file = await bytesOf(run.files.find((f: any) => f.kind === 'masav').url);
      assert.equal(run.files.find((f: any) => f.kind === 'masav').size, file.length);
      const recs = records(file);
      assert.equal(recs.length, 1 + 2 + 1 + 1);
      const head = parse(recs[0], HEADER);
      const today = jerusalemDay(Date.now());
      assert.deepEqual([head.type, head.institution, head.currency, head.payDate, head.serial, head.createdDate, head.sender, head.kot], ['K', '12345678', '00', yymmdd(run.payDate), '001', yymmdd(today), '54321', 'KOT']);
      assert.equal(run.serial, 1);
      assert.equal(readText(head.raw.name), 'מאפיית הגליל');
      const rows = [parse(recs[1], ITEM), parse(recs[2], ITEM)];
      assert.deepEqual(
        rows.map((r) => [r.type, r.institution, r.bank, r.branch, r.account, r.payeeId, readText(r.raw.name), Number(r.shekels) * 100 + Number(r.agorot), r.payeeNumber, r.movement]),
        [
          ['1', '12345678', '12', '345', '000123456', '000000000', 'דני כהן', 123_450, '7001'.padStart(20, '0'), '006'],
          ['1', '12345678', '10', '009', '987654321', '000000000', 'ACME LTD.', bTotal, '0'.repeat(20), '006'],
        ],
      );
      const trailer = parse(recs[3], TRAILER);
      const trailerAgorot = Number(trailer.shekels) * 100 + Number(trailer.agorot);
      assert.deepEqual([trailer.type, trailer.serial, trailer.payDate, Number(trailer.count)], ['5', '001', yymmdd(run.payDate), 2]);
      assert.equal(recs[4].toString('latin1'), '9'.repeat(128));

      // The same sums everywhere: trailer = the spreadsheet's rows; trailer + Bit = the run's ILS total = the items.
      const portal = csvRows(await bytesOf(run.files.find((f: any) => f.kind === 'portal').url));
      assert.deepEqual(portal.map((r) => [r[0], r[1], r[2]]), [['12', '345', '123456'], ['10', '9', '987654321']]);
      assert.equal(portal.reduce((t, r) => t + agorot(r[5]), 0), trailerAgorot);
      const bit = csvRows(await bytesOf(run.files.find((f: any) => f.kind === 'bit').url));
      assert.equal(bit.length, 1);
      assert.equal(trailerAgorot + agorot(bit[0][2]), run.totals[0].totalAgorot);
      assert.equal(run.items.reduce((t: number, i: any) => t + i.totalAgorot, 0), run.totals[0].totalAgorot);

      // The next run's file takes the next serial; a file rebuilt (its stored copy gone) has the same bytes and a new link.
      const d = await ready({ supplierName: 'Second', amountAgorot: 500 });
      const next = await h.call('payRunCreate', { paymentIds: [d.id] });
      assert.equal(next.serial, 2);
      const oldUrl = next.files[0].url;
      const oldBytes = await bytesOf(oldUrl);
      const stored0 = (await h.app.services.store.get(`businesses/${h.owner.businessId}/payRuns/${next.id}`))!.data as any;
      await h.app.services.files.remove(h.owner.businessId, stored0.files[0].fileId);
      const again = await h.call('payRunGet', { runId: next.id });
      assert.notEqual(again.files[0].url, oldUrl);
      assert.ok((await bytesOf(again.files[0].url)).equals(oldBytes));
    });

    test('all or nothing: each refused payment is named with its reason, and nothing is created', async () => {
      const ok = await ready({ amountAgorot: 1_000 });
      const sent = await createPayment(h, { channel: 'link' });
      const inRun = await ready({ amountAgorot: 2_000 });
      await h.call('payRunCreate', { paymentIds: [inRun.id] });
      const changed = await ready({ amountAgorot: 3_000 }, BANK_B, { payoutChanged: true });
      const open = await ready({ amountAgorot: 0, openAmount: true });
      const noPayout = await ready({ amountAgorot: 4_000 }, null);
      const dollarsHere = await ready({ amountAgorot: 5_000, currency: 'USD' }, BANK_A);
      const runs = await countDocs(h, `businesses/${h.owner.businessId}/payRuns`);
      const ids = [ok.id, sent.id, inRun.id, changed.id, open.id, noPayout.id, dollarsHere.id, 'no-such-payment', ok.id];
      const err = await h.call('payRunCreate', { paymentIds: ids }).then(() => null, (e) => e);
      assert.equal(err?.code, 'failed-precondition');
      assert.equal(err.details.reason, 'runPaymentsRefused');
      assert.deepEqual(err.details.params, {
        paymentIds: [sent.id, inRun.id, changed.id, open.id, noPayout.id, dollarsHere.id, 'no-such-payment', ok.id],
        reasons: ['notReady', 'inOpenRun', 'notApproved', 'amountNotSet', 'noPayout', 'israeliNotIls', 'notFound', 'duplicate'],
      });
      assert.match(err.message, new RegExp(`${sent.id} \\(notReady\\)`));
      assert.equal(await countDocs(h, `businesses/${h.owner.businessId}/payRuns`), runs, 'no run');
      assert.equal((await stored(h, ok.id)).runId ?? null, null, 'the accepted payment was not taken either');

      // A changed payout is refused until an approval is given after the change; then it goes in.
      await approve(changed.id);
      const run = await h.call('payRunCreate', { paymentIds: [changed.id, ok.id] });
      assert.deepEqual(run.items.map((i: any) => i.paymentId), [changed.id, ok.id]);
      // Above the policy's threshold a payment needs approval too.
      await setPolicy(10_000);
      try {
        const big = await ready({ amountAgorot: 20_000 });
        const small = await ready({ amountAgorot: 9_000 });
        await assert.rejects(h.call('payRunCreate', { paymentIds: [small.id, big.id] }), (e: any) => e.details.reason === 'runPaymentsRefused' && e.details.params.paymentIds.join() === big.id && e.details.params.reasons.join() === 'notApproved');
        await approve(big.id);
        assert.equal((await h.call('payRunCreate', { paymentIds: [small.id, big.id] })).items.length, 2);
      } finally {
        await setPolicy(null);
      }
    });

    test('two creates racing for one payment: exactly one run takes it', async () => {
      const p = await ready({ amountAgorot: 7_700 });
      const results = await Promise.allSettled([h.call('payRunCreate', { paymentIds: [p.id] }), h.call('payRunCreate', { paymentIds: [p.id] })]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.equal(lost.reason.details.reason, 'runPaymentsRefused');
      assert.deepEqual(lost.reason.details.params.reasons, ['inOpenRun']);
    });

    test('the pay date: the earliest due date, today when none or passed; a date asked must be real and not past', async () => {
      const today = jerusalemDay(Date.now());
      const later = await ready({}, BANK_A, { dueDate: '2099-03-10' });
      const sooner = await ready({}, BANK_A, { dueDate: '2099-03-05' });
      const none = await ready();
      assert.equal((await h.call('payRunCreate', { paymentIds: [later.id, none.id, sooner.id] })).payDate, '2099-03-05');
      const overdue = await ready({}, BANK_A, { dueDate: '2001-01-01' });
      assert.equal((await h.call('payRunCreate', { paymentIds: [overdue.id] })).payDate, today);
      const plain = await ready();
      await assert.rejects(h.call('payRunCreate', { paymentIds: [plain.id], payDate: '2001-01-01' }), (e: any) => e.code === 'invalid-argument' && e.details.field === 'payDate' && e.details.reason === 'payDateInPast');
      await assert.rejects(h.call('payRunCreate', { paymentIds: [plain.id], payDate: '2099-02-30' }), (e: any) => e.code === 'invalid-argument' && e.details.field === 'payDate' && e.details.reason === 'notARealDate');
      assert.equal((await h.call('payRunCreate', { paymentIds: [plain.id], payDate: '2099-12-31' })).payDate, '2099-12-31');
    });

    test('payRunMarkPaid pays each payment as markPaid does; a retry skips the paid ones and tells no supplier twice', async () => {
      const a = await ready({ supplierName: 'First', amountAgorot: 1_100 });
      const b = await ready({ supplierName: 'Second', amountAgorot: 2_200 }, BIT);
      const run = await h.call('payRunCreate', { paymentIds: [a.id, b.id] });
      const paidMessages = async () => (await outbox(h)).filter((r) => r.reason === 'markPaid' && [a.id, b.id].includes(r.ref!)).length;
      assert.equal(await paidMessages(), 0);
      const first = await h.call('payRunMarkPaid', { runId: run.id });
      assert.equal(first.status, 'paid');
      assert.ok(first.paidAt);
      assert.deepEqual([first.paidNow, first.alreadyPaid, first.refused], [[a.id, b.id], [], []]);
      assert.deepEqual(first.items.map((i: any) => i.paymentStatus), ['paid', 'paid']);
      for (const p of [a, b]) assert.equal((await stored(h, p.id)).status, 'paid');
      assert.equal(await paidMessages(), 2, 'each supplier told once');
      const rows = await h.call('listActivity', { kind: 'payments' });
      for (const p of [a, b]) assert.ok(rows.items.some((r: any) => r.action === 'markPaid' && r.targetIds.includes(p.id)), 'the payment\'s own activity row');

      const again = await h.call('payRunMarkPaid', { runId: run.id });
      assert.deepEqual([again.status, again.paidNow, again.alreadyPaid, again.refused], ['paid', [], [a.id, b.id], []]);
      assert.equal(again.paidAt, first.paidAt);
      assert.equal(await paidMessages(), 2, 'no second message');
      // A paid run's file is not made again once its link is gone (uploaded twice, it would pay twice).
      const rec = (await h.app.services.store.get(`businesses/${h.owner.businessId}/payRuns/${run.id}`))!.data as any;
      assert.deepEqual(rec.files.map((f: any) => f.kind), ['masav', 'portal', 'bit']);
      await h.app.services.files.remove(h.owner.businessId, rec.files[0].fileId);
      assert.deepEqual((await h.call('payRunGet', { runId: run.id })).files.map((f: any) => f.kind), ['portal', 'bit']);
      assert.deepEqual((await h.call('payRunsList', { status: 'paid' })).items.find((r: any) => r.id === run.id).files.map((f: any) => f.kind), ['portal', 'bit']);
    });

    test('a payment changed or no longer approved after the run is not paid, by name; the rest are; the run is partly paid', async () => {
      const a = await ready({ amountAgorot: 1_000 });
      const b = await ready({ amountAgorot: 2_000 });
      const c = await ready({ amountAgorot: 3_000 });
      const run = await h.call('payRunCreate', { paymentIds: [a.id, b.id, c.id] });
      // b's amount changes after the file was made; c is rejected by an admin.
      await h.app.services.store.update(paymentsPath(h.owner.businessId, b.id), { amountAgorot: 2_500 });
      await h.app.services.store.update(paymentsPath(h.owner.businessId, c.id), { rejection: { by: 'x', byEmail: 'x@example.com', at: new Date().toISOString(), reason: 'wrong' } });
      // The run's page warns: its files still carry b as it was.
      assert.deepEqual((await h.call('payRunGet', { runId: run.id })).warnings, [{ reason: 'changedSinceRun', fields: [b.id] }]);
      const out = await h.call('payRunMarkPaid', { runId: run.id });
      assert.equal(out.status, 'partly_paid');
      assert.deepEqual(out.paidNow, [a.id]);
      assert.deepEqual(out.refused, [{ paymentId: b.id, reason: 'changedSinceRun' }, { paymentId: c.id, reason: 'notApproved' }]);
      assert.equal((await stored(h, b.id)).status, 'ready');
      // Nothing payable left: refused as a whole, naming them.
      await assert.rejects(h.call('payRunMarkPaid', { runId: run.id, paymentIds: [b.id, c.id] }), (e: any) => e.details.reason === 'runPaymentsRefused' && e.details.params.reasons.join() === 'changedSinceRun,notApproved');
      // Canceling the partly paid run releases the unpaid ones; the paid one stays paid.
      const canceled = await h.call('payRunCancel', { runId: run.id });
      assert.equal(canceled.status, 'canceled');
      assert.deepEqual(canceled.files, []);
      assert.equal((await stored(h, a.id)).status, 'paid');
      assert.equal((await stored(h, b.id)).runId, null);
      await assert.rejects(h.call('payRunMarkPaid', { runId: run.id }), (e: any) => e.code === 'failed-precondition' && e.details.reason === 'runNotOpen');
    });

    test('markPaid refuses a payment whose approval is required and not granted', async () => {
      await setPolicy(0);
      try {
        const p = await ready({ amountAgorot: 100 });
        await assert.rejects(h.call('markPaid', { paymentId: p.id }), (e: any) => e.code === 'failed-precondition' && e.details.reason === 'approvalMissing' && /^approval:/.test(e.message));
        assert.equal((await stored(h, p.id)).status, 'ready');
        await approve(p.id);
        assert.equal((await h.call('markPaid', { paymentId: p.id })).status, 'paid');
      } finally {
        await setPolicy(null);
      }
    });

    test('payRunCancel releases the payments and removes the files; again changes nothing; a paid run is not canceled', async () => {
      const a = await ready({ amountAgorot: 1_234 });
      const run = await h.call('payRunCreate', { paymentIds: [a.id] });
      const token = fileToken(run.files[0].url);
      const canceled = await h.call('payRunCancel', { runId: run.id });
      assert.deepEqual([canceled.status, canceled.files], ['canceled', []]);
      assert.ok(canceled.canceledAt);
      assert.equal((await stored(h, a.id)).runId, null);
      assert.equal(await h.app.services.files.open(token), null, 'the canceled run\'s file link is dead');
      assert.equal((await h.call('payRunCancel', { runId: run.id })).canceledAt, canceled.canceledAt);
      const rerun = await h.call('payRunCreate', { paymentIds: [a.id] });
      await h.call('payRunMarkPaid', { runId: rerun.id });
      await assert.rejects(h.call('payRunCancel', { runId: rerun.id }), (e: any) => e.details.reason === 'runNotOpen' && e.details.params.status === 'paid');
    });

    test("while its run is open a payment's amount, currency and VAT stay as the bank file holds them, and it cannot be canceled; canceling the run frees it", async () => {
      const a = await ready({ amountAgorot: 5_000, vatIncluded: true });
      const run = await h.call('payRunCreate', { paymentIds: [a.id] });
      const inRun = (e: any) => e.code === 'failed-precondition' && e.details.reason === 'paymentInOpenRun' && e.details.params.runId === run.id;
      await assert.rejects(h.call('updatePaymentSettings', { paymentId: a.id, amountAgorot: 9_000 }), (e: any) => inRun(e) && e.details.field === 'amountAgorot');
      await assert.rejects(h.call('updatePaymentSettings', { paymentId: a.id, vatIncluded: false }), inRun);
      await assert.rejects(h.call('cancelPayment', { paymentId: a.id }), inRun);
      assert.equal((await stored(h, a.id)).amountAgorot, 5_000, 'nothing changed');
      // What the file does not hold may change.
      assert.equal((await h.call('updatePaymentSettings', { paymentId: a.id, description: 'November' })).description, 'November');
      await h.call('payRunCancel', { runId: run.id });
      assert.equal((await h.call('updatePaymentSettings', { paymentId: a.id, amountAgorot: 9_000 })).amountAgorot, 9_000);
      assert.equal((await h.call('cancelPayment', { paymentId: a.id })).status, 'canceled');
    });

    test('without the MASAV codes the run builds with a warning and no MASAV file; abroad goes to the foreign list', async () => {
      const other = await h.newBusiness('No Codes Ltd');
      const il = await ready({ amountAgorot: 10_000 }, BANK_A, {}, other);
      const eu = await ready({ amountAgorot: 25_000, currency: 'EUR', vatIncluded: true }, IBAN, {}, other);
      const run = await h.call('payRunCreate', { paymentIds: [il.id, eu.id] }, other);
      assert.deepEqual(run.warnings, [{ reason: 'masavSettingsMissing', fields: ['masavInstitutionId', 'masavSenderId'] }]);
      assert.equal(run.serial, null);
      assert.deepEqual(run.files.map((f: any) => f.kind), ['portal', 'foreign']);
      assert.deepEqual(run.totals, [{ currency: 'ILS', count: 1, totalAgorot: 10_000 }, { currency: 'EUR', count: 1, totalAgorot: 25_000 }]);
      const foreign = csvRows(await bytesOf(run.files[1].url));
      assert.deepEqual([foreign[0][1], foreign[0][6], foreign[0][7]], ['DE89370400440532013000', '250.00', 'EUR']);
      // The codes are validated, "" clears, and getBusiness shows them.
      await assert.rejects(h.call('updateBusiness', { masavInstitutionId: '1234' }, other), (e: any) => e.code === 'invalid-argument' && e.details.field === 'masavInstitutionId');
      await assert.rejects(h.call('updateBusiness', { masavSenderId: '12a45' }, other), (e: any) => e.code === 'invalid-argument' && e.details.field === 'masavSenderId');
      await h.call('updateBusiness', { masavInstitutionId: '87654321', masavSenderId: '12345' }, other);
      assert.deepEqual([(await h.call('getBusiness', {}, other)).masavInstitutionId, (await h.call('getBusiness', {}, other)).masavSenderId], ['87654321', '12345']);
      await h.call('updateBusiness', { masavInstitutionId: '' }, other);
      assert.equal((await h.call('getBusiness', {}, other)).masavInstitutionId, '');
    });

    test('another business reaches nothing of a run; a user (not admin) cannot create, pay or cancel one', async () => {
      const p = await ready({ amountAgorot: 999 });
      const run = await h.call('payRunCreate', { paymentIds: [p.id] });
      const stranger = await h.newBusiness('Stranger');
      for (const op of ['payRunGet', 'payRunMarkPaid', 'payRunCancel']) {
        await assert.rejects(h.call(op, { runId: run.id }, stranger), (e: any) => e.code === 'not-found' && e.details.params?.what === 'run', op);
      }
      assert.deepEqual((await h.call('payRunsList', {}, stranger)).items, []);
      await assert.rejects(h.call('payRunCreate', { paymentIds: [p.id] }, stranger), (e: any) => e.details.params?.reasons?.join() === 'notFound');
      assert.equal((await stored(h, p.id)).status, 'ready');
      const user = await h.addMember('user');
      for (const [op, input] of [['payRunCreate', { paymentIds: [p.id] }], ['payRunMarkPaid', { runId: run.id }], ['payRunCancel', { runId: run.id }]] as const) {
        await assert.rejects(h.call(op, input, user), (e: any) => e.code === 'permission-denied', op);
      }
      assert.equal((await h.call('payRunGet', { runId: run.id }, user)).id, run.id, 'a user can read runs');
      await h.call('payRunCancel', { runId: run.id });
    });

    test('payRunsList: newest first, by status, in pages', async () => {
      const other = await h.newBusiness('Lister');
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await h.call('payRunCreate', { paymentIds: [(await ready({ amountAgorot: 100 + i }, BIT, {}, other)).id] }, other));
      await h.call('payRunCancel', { runId: made[0].id }, other);
      const page1 = await h.call('payRunsList', { limit: 2 }, other);
      assert.deepEqual(page1.items.map((r: any) => r.id), [made[2].id, made[1].id]);
      const page2 = await h.call('payRunsList', { limit: 2, pageToken: page1.nextPageToken }, other);
      assert.deepEqual(page2.items.map((r: any) => r.id), [made[0].id]);
      assert.equal(page2.nextPageToken, null);
      assert.deepEqual((await h.call('payRunsList', { status: 'canceled' }, other)).items.map((r: any) => r.id), [made[0].id]);
      assert.deepEqual((await h.call('payRunsList', { status: 'open' }, other)).items.map((r: any) => r.id), [made[2].id, made[1].id]);
    });

    test('through HTTP and MCP', async () => {
      const origin = await h.listen();
      const a = await ready({ amountAgorot: 4_321 });
      const created = await post(origin, '/v1/payRunCreate', { paymentIds: [a.id] }, h.owner.apiKey);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const runId = created.body.result.id;
      const got = await get(origin, `/v1/payRunGet?runId=${runId}`, h.owner.apiKey);
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.equal(got.body.result.totals[0].totalAgorot, 4_321);
      const refused = await post(origin, '/v1/payRunCreate', { paymentIds: [a.id] }, h.owner.apiKey);
      assert.equal(refused.status, 400);
      assert.deepEqual([refused.body.error.code, refused.body.error.details.reason, refused.body.error.details.params.reasons], ['failed-precondition', 'runPaymentsRefused', ['inOpenRun']]);
      const bad = await post(origin, '/v1/payRunCreate', { paymentIds: [] }, h.owner.apiKey);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.details.field, 'paymentIds');

      const client = new Client({ name: 'payruns-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp?toolsets=payruns`), { requestInit: { headers: { authorization: `Bearer ${h.owner.apiKey}` } } }));
      try {
        const listed = await client.callTool({ name: 'payRunsList', arguments: { status: 'open' } });
        assert.notEqual(listed.isError, true, JSON.stringify(listed));
        assert.ok((listed.structuredContent as any).items.some((r: any) => r.id === runId));
        const paid = await client.callTool({ name: 'payRunMarkPaid', arguments: { runId } });
        assert.notEqual(paid.isError, true, JSON.stringify(paid));
        assert.deepEqual([(paid.structuredContent as any).status, (paid.structuredContent as any).paidNow], ['paid', [a.id]]);
      } finally {
        await client.close();
      }
    });
  });
}

test("the daily message cap holds for a whole run: when the suppliers' messages would pass it, nothing is paid", async () => {
  const env = await paymentsEnv({ QUOTA_MESSAGES: '3' });
  try {
    const { h } = env;
    const ids: string[] = [];
    for (const name of ['One', 'Two']) {
      const p = await createPayment(h, { channel: 'link', supplierName: name, supplierPhone: '0521234567', supplierEmail: `${name}@example.com` });
      await h.app.services.store.update(paymentsPath(h.owner.businessId, p.id), { status: 'ready', payout: BANK_A, readyAt: new Date().toISOString() });
      ids.push(p.id);
    }
    const run = await h.call('payRunCreate', { paymentIds: ids });
    await assert.rejects(h.call('payRunMarkPaid', { runId: run.id }), (e: any) => e.code === 'resource-exhausted' && /daily cap of 3 outgoing messages/.test(e.message));
    for (const id of ids) assert.equal((await stored(h, id)).status, 'ready');
    // One payment's two messages fit.
    assert.deepEqual((await h.call('payRunMarkPaid', { runId: run.id, paymentIds: [ids[0]] })).paidNow, [ids[0]]);
  } finally {
    await env.close();
  }
});

test("a run's file links expire after 7 days like the ZIPs'; payRunGet gives a fresh link to the same bytes near the end", async () => {
  let now = Date.parse('2026-11-02T08:00:00Z');
  const h = await createHarness({ env: { PUBLIC_LINK_BASE: 'https://pay.example.com' }, overrides: { clock: { now: () => now } } });
  try {
    await h.call('updateBusiness', { masavInstitutionId: '12345678', masavSenderId: '54321' });
    const p = await h.call('createPayment', { amountAgorot: 5_000, vatIncluded: true, description: 'x', supplierName: 'Dana', supplierEmail: 'd@example.com', channel: 'link' });
    await h.app.services.store.update(paymentsPath(h.owner.businessId, p.id), { status: 'ready', payout: BANK_A });
    const run = await h.call('payRunCreate', { paymentIds: [p.id] });
    const first = run.files.find((f: any) => f.kind === 'masav');
    assert.equal(first.expiresAt, new Date(now + 7 * 86_400_000).toISOString());
    const bytes = (await h.app.services.files.open(fileToken(first.url)))!.bytes;
    now += 5 * 86_400_000; // two days left: the same link
    assert.equal((await h.call('payRunGet', { runId: run.id })).files.find((f: any) => f.kind === 'masav').url, first.url);
    now += 1.5 * 86_400_000; // half a day left: a new link, the same bytes (the serial kept)
    const renewed = (await h.call('payRunGet', { runId: run.id })).files.find((f: any) => f.kind === 'masav');
    assert.notEqual(renewed.url, first.url);
    assert.ok((await h.app.services.files.open(fileToken(renewed.url)))!.bytes.equals(bytes));
    now += 86_400_000; // the first link has expired (410), the renewed one works
    assert.ok(await h.app.services.files.expiredLink(fileToken(first.url)));
    assert.ok(await h.app.services.files.open(fileToken(renewed.url)));
  } finally {
    await h.close();
  }
});
