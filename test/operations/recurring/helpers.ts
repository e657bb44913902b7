import { createHarness, type Harness } from '../../harness.ts';
import { startSmtp } from '../../fakes/smtp.ts';
import { startFakeWhatsApp, type FakeWhatsApp } from '../../fakes/whatsappCloudApi.ts';
import { paymentsPath, type PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';
import type { OutboxRecord } from '../../../functions/src/core/outbox.ts';

/** A payments harness (real SMTP, the fake WhatsApp Cloud API) whose clock the test sets. */
export interface RecurringEnv {
  h: Harness;
  wa: FakeWhatsApp;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  /** Sets the clock to an ISO instant. */
  at(iso: string): void;
  /** The environment the harness was made with (a child process on the same store takes it). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export const WA_TOKEN = 'test-wa-token';
export const WA_PHONE_ID = '1234567890';

export async function recurringEnv(extra: Record<string, string> = {}, start = '2026-11-05T08:00:00Z'): Promise<RecurringEnv> {
  const smtp = await startSmtp();
  const wa = await startFakeWhatsApp({ token: WA_TOKEN, phoneNumberId: WA_PHONE_ID });
  let now = Date.parse(start);
  const env = {
    ...extra,
    SMTP_URL: smtp.url,
    WHATSAPP_BASE_URL: wa.baseUrl,
    WHATSAPP_TOKEN: WA_TOKEN,
    WHATSAPP_PHONE_NUMBER_ID: WA_PHONE_ID,
    PUBLIC_LINK_BASE: 'https://pay.example.com',
    DASHBOARD_URL: 'https://app.example.com',
  };
  const h = await createHarness({ env, overrides: { clock: { now: () => now } } });
  return {
    h,
    wa,
    smtp,
    env,
    at(iso) {
      now = Date.parse(iso);
    },
    async close() {
      await h.close();
      await wa.close();
      await smtp.close();
    },
  };
}

/** A recurringCreate template; `over` replaces or adds fields. */
export const template = (over: Record<string, unknown> = {}) => ({
  supplierName: 'דנה כהן',
  supplierPhone: '050-123-4567',
  amountAgorot: 350_000,
  vatIncluded: true,
  description: 'ריטיינר {month}',
  ...over,
});

export async function paymentsOf(h: Harness, scheduleId: string, businessId = h.owner.businessId): Promise<PaymentRecord[]> {
  const docs = await h.app.services.store.query({ collection: `businesses/${businessId}/payments`, where: [['recurringId', '==', scheduleId]] });
  return docs.map((d) => d.data as unknown as PaymentRecord & { recurringPeriod: string }).sort((a, b) => ((a as any).recurringPeriod < (b as any).recurringPeriod ? -1 : 1));
}

export async function stored(h: Harness, paymentId: string, businessId = h.owner.businessId) {
  return (await h.app.services.store.get(paymentsPath(businessId, paymentId)))?.data as (PaymentRecord & { recurringPeriod?: string }) | undefined;
}

export async function outboxOf(h: Harness, paymentId: string, businessId = h.owner.businessId): Promise<OutboxRecord[]> {
  const docs = await h.app.services.store.query({ collection: `businesses/${businessId}/outbox`, where: [['ref', '==', paymentId]] });
  return docs.map((d) => d.data as unknown as OutboxRecord);
}
