import { defineOperation } from '../../core/defineOperation.ts';
import { precondition } from '../../core/errors.ts';
import { id, input } from '../../core/schema.ts';
import { isUnpaid, paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { getRun, payRunsPath, runView, runViewSchema, type PayRunRecord } from '../../domain/payruns/payRuns.ts';

export default defineOperation({
  name: 'payRunCancel',
  group: 'payruns',
  summary: 'Cancel a run, releasing its unpaid payments.',
  description: 'Its files are removed. Paid payments stay paid; a fully paid run cannot be canceled. Canceling a canceled run changes nothing.',
  flags: { adminOnly: true, dangerous: true, idempotent: true },
  input: input({ runId: id().describe('Run id.') }),
  output: runViewSchema,
  async run({ runId }, ctx) {
    const { businessId } = ctx.caller;
    await getRun(ctx.store, businessId, runId);
    const at = new Date(ctx.clock.now()).toISOString();
    let removed: string[] = [];
    const run = await ctx.store.runTransaction(async (tx) => {
      removed = [];
      const current = (await tx.get(payRunsPath(businessId, runId)))!.data as unknown as PayRunRecord;
      if (current.status === 'canceled') return current;
      if (current.status === 'paid') throw precondition('runId: the run is paid; there is nothing left to cancel (revertPaid undoes a payment)', { reason: 'runNotOpen', params: { status: current.status } });
      const docs = await tx.getAll(current.items.map((i) => paymentsPath(businessId, i.paymentId)));
      for (const d of docs) {
        const p = d?.data as unknown as PaymentRecord | undefined;
        if (p && p.runId === runId && isUnpaid(p.status)) tx.update(d!.path, { runId: null, updatedAt: at });
      }
      removed = current.files.map((f) => f.fileId);
      const changes = { status: 'canceled' as const, canceledAt: at, updatedAt: at, files: [] };
      tx.update(payRunsPath(businessId, runId), changes);
      return { ...current, ...changes };
    });
    // Nobody downloads (and uploads to the bank) a canceled run's file.
    for (const f of removed) await ctx.files.remove(businessId, f).catch((e) => ctx.logger.warn('could not remove a canceled run\'s file', { runId, error: String(e) }));
    return runView(ctx, run);
  },
  activity: (_input, r) => ({
    params: { payDate: r.payDate, count: r.items.length, released: r.items.filter((i) => ['sent', 'awaiting_invoice', 'ready'].includes(i.paymentStatus)).length },
    targetIds: [r.id, ...r.items.map((i) => i.paymentId)],
    summary: `canceled the payment run for ${r.payDate}`,
  }),
});
