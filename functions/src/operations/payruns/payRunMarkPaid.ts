import { createHash } from 'node:crypto';
import { z } from 'zod';
import { appendActivity } from '../../core/activity.ts';
import { defineOperation } from '../../core/defineOperation.ts';
import { isApiError, precondition } from '../../core/errors.ts';
import { messagesExhausted, quotaUsed } from '../../core/quota.ts';
import { base64, fileName, id, input, text } from '../../core/schema.ts';
import { claimUpload, inlineOrUploaded, type UploadClaim } from '../../core/uploads.ts';
import { formatAmount } from '../../domain/money.ts';
import { approvalAllowsPaying, approvalOf } from '../../domain/payments/approvals.ts';
import { checkProof, PROOF_MAX_BYTES, readForPaying, writePaid } from '../../domain/payments/paying.ts';
import { isUnpaid, paymentsPath, type PaymentFile, type PaymentRecord } from '../../domain/payments/payments.ts';
import { paymentAmounts } from '../../domain/vat.ts';
import {
  getRun,
  matchesSnapshot,
  payRunsPath,
  RUN_MAX_PAYMENTS,
  RUN_REFUSALS,
  runRefused,
  runView,
  runViewSchema,
  statusFrom,
  type PayRunRecord,
  type RunRefusal,
} from '../../domain/payruns/payRuns.ts';

type Outcome = 'paid' | 'skipped' | RunRefusal;

export default defineOperation({
  name: 'payRunMarkPaid',
  group: 'payruns',
  summary: "Mark a run's payments paid, as markPaid does.",
  description:
    'Each payment is marked paid and its supplier told; one already paid is skipped (alreadyPaid). A payment changed since the run (amount, currency, payout), ' +
    'no longer approved, canceled or released is not paid and is listed in refused; the rest are paid. Nothing paid and something refused: failed-precondition runPaymentsRefused. ' +
    'paymentIds: default all the run\'s payments. proof (as markPaid\'s: fileName, mimeType and dataBase64, or fileId of an upload with purpose proof) is the bank\'s confirmation of the batch: it stays on the run and is not sent to suppliers.',
  flags: { adminOnly: true, openWorld: true, idempotent: true },
  input: input({
    runId: id().describe('Run id.'),
    paymentIds: z.array(id()).min(1).max(RUN_MAX_PAYMENTS).optional().describe('Payment ids.'),
    proof: z
      .strictObject({
        fileName: fileName().optional().describe('File name.'),
        mimeType: text(100).optional().describe('Mime type.'),
        dataBase64: base64(PROOF_MAX_BYTES).optional().describe('Data base64.'),
        fileId: id().optional().describe('File id.'),
      })
      .optional()
      .describe('Proof.'),
  }),
  output: runViewSchema.extend({
    paidNow: z.array(z.string()),
    alreadyPaid: z.array(z.string()),
    refused: z.array(z.object({ paymentId: z.string(), reason: z.enum(RUN_REFUSALS) })),
  }),
  async run({ runId, paymentIds, proof }, ctx) {
    const { businessId } = ctx.caller;
    const run = await getRun(ctx.store, businessId, runId);
    if (run.status === 'canceled') throw precondition(`runId: the run is canceled; nothing in it can be paid`, { reason: 'runNotOpen', params: { status: run.status } });
    const file = proof ? await checkProof(await inlineOrUploaded(ctx, proof, 'proof', 'proof.')) : null;
    const now = ctx.clock.now();
    const at = new Date(now).toISOString();
    const inRun = new Map(run.items.map((i) => [i.paymentId, i]));
    const wanted = [...new Set(paymentIds ?? run.items.map((i) => i.paymentId))];
    // The daily message cap holds for the whole run (each payment's transaction checks only its own messages):
    // when the suppliers' "paid" messages would pass it, nothing is paid.
    const cap = ctx.config.quotas.messages;
    if (cap !== undefined) {
      const docs = await ctx.store.getAll(wanted.filter((pid) => inRun.has(pid)).map((pid) => paymentsPath(businessId, pid)));
      const expected = docs.reduce((n, d) => {
        const p = d?.data as unknown as PaymentRecord | undefined;
        return n + (p && isUnpaid(p.status) && p.runId === runId ? Number(Boolean(p.supplierPhone)) + Number(Boolean(p.supplierEmail)) : 0);
      }, 0);
      if (expected && (await quotaUsed(ctx.store, businessId, 'messages', now)) + expected > cap) throw messagesExhausted(cap, now);
    }
    const outcomes = new Map<string, Outcome>();
    for (const pid of wanted) {
      if (outcomes.has(pid)) continue;
      const item = inRun.get(pid);
      if (!item) {
        outcomes.set(pid, 'notInRun');
        continue;
      }
      // One transaction a payment: each pays or not on its own, and a retry finds the paid ones paid.
      let paid: PaymentRecord | null = null;
      let outcome: Outcome;
      try {
        outcome = await ctx.store.runTransaction(async (tx) => {
          paid = null;
          const current = (await tx.get(payRunsPath(businessId, runId)))?.data as unknown as PayRunRecord | undefined;
          if (!current || current.status === 'canceled') throw precondition('runId: the run was canceled meanwhile', { reason: 'runNotOpen', params: { status: 'canceled' } });
          const r = await readForPaying(tx, businessId, pid);
          const p = r.p;
          if (p.status === 'paid') return 'skipped';
          if (p.runId !== runId) return 'notInRun';
          if (!isUnpaid(p.status)) return 'notReady';
          if (p.openAmount && p.amountAgorot === 0) return 'amountNotSet';
          if (!matchesSnapshot(p, item)) return 'changedSinceRun';
          if (!approvalAllowsPaying(approvalOf(p, r.policy))) return 'notApproved';
          paid = await writePaid(tx, ctx, r, { at, proof: null, proofUrl: null });
          return 'paid';
        });
      } catch (e) {
        if (isApiError(e) && e.details.reason === 'notFoundWhat') outcome = 'notFound';
        else throw e;
      }
      outcomes.set(pid, outcome);
      const done = paid as PaymentRecord | null;
      if (done) {
        // The payment's own history says it was paid, as markPaid's row does.
        const total = paymentAmounts(done).totalAgorot;
        await appendActivity(ctx.store, ctx.ids, ctx.caller, ctx.clock.now(), {
          operation: 'markPaid',
          kind: 'payments',
          targetIds: [done.id, runId],
          summary: `marked the payment to ${done.supplierName} paid (${formatAmount(total, done.currency)}) in a payment run`,
          params: { supplier: done.supplierName, amountAgorot: total, currency: done.currency, proof: false },
        }).catch((e) => ctx.logger.error('could not write the activity row of a paid payment', { paymentId: done.id, error: String(e) }));
      }
    }
    const ids = (o: (x: Outcome) => boolean) => [...outcomes].filter(([, x]) => o(x)).map(([pid]) => pid);
    const paidNow = ids((x) => x === 'paid');
    const alreadyPaid = ids((x) => x === 'skipped');
    const refused = [...outcomes].filter(([, x]) => x !== 'paid' && x !== 'skipped').map(([paymentId, reason]) => ({ paymentId, reason: reason as RunRefusal }));
    if (!paidNow.length && !alreadyPaid.length && refused.length) throw runRefused(refused);

    // The proof of the batch is kept on the run (it lists every payee: it is not sent to any of them).
    let stored: PaymentFile | null = null;
    let claim: UploadClaim | null = null;
    if (file) {
      const ref = await ctx.files.save(businessId, { fileName: file.fileName, contentType: file.contentType, bytes: file.bytes });
      stored = { fileId: ref.fileId, fileName: ref.fileName, contentType: ref.contentType, size: ref.size, sha256: createHash('sha256').update(file.bytes).digest('hex'), uploadedAt: at };
    }
    let replaced: string | null = null;
    let updated: PayRunRecord;
    try {
      updated = await ctx.store.runTransaction(async (tx) => {
        const doc = await tx.get(payRunsPath(businessId, runId));
        const current = doc!.data as unknown as PayRunRecord;
        const docs = await tx.getAll(current.items.map((i) => paymentsPath(businessId, i.paymentId)));
        claim = proof?.fileId ? await claimUpload(tx, ctx, proof.fileId, 'proof.fileId') : null;
        claim?.take();
        const statuses = docs.map((d) => String(d?.data.status ?? 'missing'));
        const status = current.status === 'canceled' ? 'canceled' : statusFrom(statuses);
        replaced = stored && current.proof ? current.proof.fileId : null;
        const changes = { status, paidAt: status === 'paid' ? (current.paidAt ?? at) : current.paidAt, updatedAt: at, ...(stored ? { proof: stored } : {}) };
        tx.update(doc!.path, changes);
        return { ...current, ...changes } as PayRunRecord;
      });
    } catch (e) {
      if (stored) await ctx.files.remove(businessId, stored.fileId).catch(() => {});
      throw e;
    }
    await (claim as UploadClaim | null)?.dropFile();
    if (replaced) await ctx.files.remove(businessId, replaced).catch(() => {});
    return { ...(await runView(ctx, updated)), paidNow, alreadyPaid, refused };
  },
  activity: (_input, r) => ({
    params: { payDate: r.payDate, paid: r.paidNow.length, skipped: r.alreadyPaid.length, refused: r.refused.length },
    targetIds: [r.id, ...r.paidNow],
    summary: `marked ${r.paidNow.length} payment(s) of the run for ${r.payDate} paid${r.alreadyPaid.length ? `, ${r.alreadyPaid.length} already paid` : ''}${r.refused.length ? `, ${r.refused.length} not paid` : ''}`,
  }),
});
