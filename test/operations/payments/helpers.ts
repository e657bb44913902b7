import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { startSmtp, type ReceivedMail } from '../../fakes/smtp.ts';
import { startFakeWhatsApp, type FakeWhatsApp } from '../../fakes/whatsappCloudApi.ts';
import { paymentsPath, type PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';
import type { OutboxRecord } from '../../../functions/src/core/outbox.ts';
import { approvalBasis } from '../../../functions/src/domain/payments/approvals.ts';

/** Shared set-up for the payment operation tests: a harness wired to a real SMTP server and the fake WhatsApp Cloud API. */
export interface PaymentsEnv {
  h: Harness;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  wa: FakeWhatsApp;
  close(): Promise<void>;
}

export const PUBLIC_LINK_BASE = 'https://pay.example.com';
const WA_TOKEN = 'test-wa-token';
const WA_PHONE_ID = '1234567890';

/** `extra` adds to the harness env (an engine's, for one). */
export async function paymentsEnv(extra: Record<string, string> = {}): Promise<PaymentsEnv> {
  const smtp = await startSmtp();
  const wa = await startFakeWhatsApp({ token: WA_TOKEN, phoneNumberId: WA_PHONE_ID });
  const h = await createHarness({
    env: {
      ...extra,
      SMTP_URL: smtp.url,
      WHATSAPP_BASE_URL: wa.baseUrl,
      WHATSAPP_TOKEN: WA_TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: WA_PHONE_ID,
      PUBLIC_LINK_BASE,
      DASHBOARD_URL: 'https://app.example.com',
    },
  });
  return {
    h,
    smtp,
    wa,
    async close() {
      await h.close();
      await wa.close();
      await smtp.close();
    },
  };
}

/** A valid createPayment body; `over` replaces or adds fields. */
export const paymentInput = (over: Record<string, unknown> = {}) => ({
  amountAgorot: 12_345,
  vatIncluded: true,
  description: 'Kitchen renovation',
  supplierName: 'Dana Cohen',
  supplierPhone: '050-123-4567',
  ...over,
});

export const createPayment = (h: Harness, over: Record<string, unknown> = {}, user?: TestUser) => h.call('createPayment', paymentInput(over), user);

/** The stored record, as the operations see it. */
export async function stored(h: Harness, paymentId: string, businessId = h.owner.businessId): Promise<PaymentRecord> {
  const doc = await h.app.services.store.get(paymentsPath(businessId, paymentId));
  if (!doc) throw new Error(`no payment ${paymentId}`);
  return doc.data as unknown as PaymentRecord;
}

/** Stands in for the supplier's submission on the link page (another engineer's surface). */
export async function simulateSubmission(h: Harness, paymentId: string, status: 'ready' | 'awaiting_invoice' = 'ready', businessId = h.owner.businessId) {
  const at = new Date().toISOString();
  await h.app.services.store.update(paymentsPath(businessId, paymentId), {
    status,
    payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Dana Cohen' },
    supplierSubmittedAt: at,
    readyAt: status === 'ready' ? at : null,
  });
}

export async function outbox(h: Harness, businessId = h.owner.businessId): Promise<OutboxRecord[]> {
  const docs = await h.app.services.store.query({ collection: `businesses/${businessId}/outbox` });
  return docs.map((d) => d.data as unknown as OutboxRecord);
}

/** Every document under a collection path, for "nothing was written" checks. */
export const countDocs = async (h: Harness, collection: string) => (await h.app.services.store.query({ collection })).length;

/** Delivers every queued message, then waits until `mails` emails and `was` WhatsApp messages arrived in total. */
export async function deliver(env: PaymentsEnv, want: { mails?: number; was?: number } = {}): Promise<{ mails: ReceivedMail[]; was: FakeWhatsApp['accepted'] }> {
  await env.h.app.queue!.drain();
  if (want.mails) await env.smtp.waitFor(want.mails);
  return { mails: env.smtp.mails, was: env.wa.accepted };
}

/** The token at the end of a supplier link. */
export const tokenOf = (link: string) => link.slice(link.lastIndexOf('/') + 1);

/** The capability token of a download URL `{files_url}/<token>/<name>`. */
export const fileToken = (url: string) => new URL(url).pathname.split('/').at(-2)!;

// Smallest files with real signatures.
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
export const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
export const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
export const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([26, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(14)]);
export const HEIC = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic'), Buffer.alloc(12)]);

/**
 * An approval by another admin, written as paymentApprove would give it on the payment as it is now: what a payment
 * needing one (a changed payout, a public filing, over the policy's threshold) must have before markPaid (issue 36).
 */
export async function approvedByAnotherAdmin(h: Harness, paymentId: string, businessId = h.owner.businessId): Promise<void> {
  const p = await stored(h, paymentId, businessId);
  await h.app.services.store.update(paymentsPath(businessId, paymentId), { approvals: [{ by: 'another-admin', byEmail: 'another-admin@example.com', at: new Date().toISOString(), basis: approvalBasis(p) }], rejection: null });
}
