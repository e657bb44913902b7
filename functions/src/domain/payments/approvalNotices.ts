import { createHash } from 'node:crypto';
import type { Config } from '../../config.ts';
import { outboxPath } from '../../core/outbox.ts';
import { ownerLinks } from '../../core/links.ts';
import type { MemberRecord } from '../../core/members.ts';
import type { EmailMessage } from '../../ports/outbox.ts';
import type { Reader } from '../../ports/store.ts';
import { approvalNeededEmail, type BusinessIdentity } from '../../emails/messages.ts';
import { membersPath } from '../people/team.ts';
import { approvalBasis, approvalOf, approvalPolicyOf } from './approvals.ts';
import { payoutChangeWarning } from './paymentMessages.ts';
import type { PaymentRecord } from './payments.ts';

/** One approver's email and the outbox id it goes under. */
export interface ApproverNotice {
  id: string;
  message: EmailMessage;
}

/**
 * The outbox id of the email to one admin about one payment as it is: a retried transaction or a replayed request
 * finds it written and sends nothing more; the same payment turning ready again on other facts (a new amount, new
 * payout details) is news and gets a new one.
 */
export function approverNoticeId(p: PaymentRecord, userId: string): string {
  const facts = createHash('sha256').update(JSON.stringify(approvalBasis(p))).digest('hex').slice(0, 16);
  return `apr_${p.id}_${userId}_${facts}`;
}

/**
 * Inside a transaction, before its first write (Firestore reads come first): when `next` turns ready (it was not
 * ready in `before`) and its approval is required and not granted, one email to each admin of the business, by
 * the member's email, skipping the ones already staged. The caller stages what this returns after its writes.
 */
export async function approverNotices(
  cfg: Pick<Config, 'dashboardUrl' | 'productName'>,
  tx: Reader,
  before: Pick<PaymentRecord, 'status'> | null,
  next: PaymentRecord,
  business: BusinessIdentity | null,
): Promise<ApproverNotice[]> {
  if (!business || next.status !== 'ready' || before?.status === 'ready') return [];
  const policy = await approvalPolicyOf(tx, next.businessId);
  const view = approvalOf(next, policy);
  if (view.state !== 'pending') return [];
  const admins = (await tx.query({ collection: membersPath(next.businessId), where: [['role', '==', 'admin']] }))
    .map((d) => d.data as unknown as MemberRecord)
    .filter((m) => m.email)
    .sort((a, b) => a.userId.localeCompare(b.userId));
  if (admins.length === 0) return [];
  const ids = admins.map((a) => approverNoticeId(next, a.userId));
  const existing = await tx.getAll(ids.map((id) => outboxPath(next.businessId, id)));
  const url = ownerLinks(cfg.dashboardUrl).payment(next.id);
  const out: ApproverNotice[] = [];
  for (const [i, admin] of admins.entries()) {
    if (existing[i]) continue;
    const message = await approvalNeededEmail(cfg, business, next, admin.email, url, { needed: view.needed, given: view.approvals.length, dueDate: next.dueDate ?? null, fourEyes: policy.thresholdAgorot !== null }, payoutChangeWarning(next) || null);
    out.push({ id: ids[i]!, message });
  }
  return out;
}
