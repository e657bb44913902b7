import { ApiError, notFound, precondition } from '../../core/errors.ts';
import { newSecret, sha256, type IdSource } from '../../core/ids.ts';
import { memberPath, type MemberRecord } from '../../core/auth.ts';
import type { Role } from '../../core/context.ts';
import type { DocStore, Transaction } from '../../ports/store.ts';
import type { EmailMessage } from '../../ports/outbox.ts';
import { businessPath, profileOf, usersPath } from '../business.ts';
import { ownerLinks } from '../../core/links.ts';
import { inviteEmail as inviteMessage, type BusinessIdentity, type Inviter, type MailCtx } from '../../emails/messages.ts';

export const INVITE_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000;

export interface InviteRecord {
  id: string;
  businessId: string;
  email: string;
  role: Role;
  status: 'pending' | 'accepted' | 'revoked';
  /** SHA-256 of the link's secret; the secret itself is only in the email. */
  tokenHash: string;
  expiresAt: string;
  invitedBy: string;
  createdAt: string;
  sentAt: string;
  acceptedAt: string | null;
}

export const invitesPath = (businessId: string, id = '') => `businesses/${businessId}/invites${id ? '/' + id : ''}`;
export const membersPath = (businessId: string) => `businesses/${businessId}/members`;

export const inviteView = (i: InviteRecord, now: number) => ({
  inviteId: i.id,
  email: i.email,
  role: i.role,
  status: i.status,
  expiresAt: i.expiresAt,
  expired: i.status === 'pending' && Date.parse(i.expiresAt) <= now,
  createdAt: i.createdAt,
  sentAt: i.sentAt,
});

/** A fresh link secret and its expiry; the old secret stops working because its hash is replaced. */
export function freshInviteLink(dashboardUrl: string, now: number) {
  const token = newSecret();
  return { token, tokenHash: sha256(token), expiresAt: new Date(now + INVITE_VALIDITY_MS).toISOString(), url: ownerLinks(dashboardUrl).invite(token) };
}

/** The invitation email, in the business's name and saying who invited (emails/messages.ts words it); `resent` says the old link is dead. */
export const inviteEmail = (m: MailCtx, business: BusinessIdentity, to: string, role: Role, url: string, expiresAt: string, inviter: Inviter, resent = false): Promise<EmailMessage> =>
  inviteMessage(m, business, to, role, url, expiresAt, inviter, resent);

/** Who sends an invite: members have only an email, the owner also the name on the business profile. */
export async function inviterOf(reader: Pick<Transaction, 'get'>, businessId: string, caller: { userId: string; email: string }): Promise<Inviter> {
  const business = await reader.get(businessPath(businessId));
  const isOwner = business?.data.ownerUserId === caller.userId;
  return { name: isOwner ? profileOf(business.data).name : '', email: caller.email };
}

export async function findMemberByEmail(reader: Pick<Transaction, 'query'>, businessId: string, email: string) {
  const found = await reader.query({ collection: membersPath(businessId), where: [['email', '==', email]], limit: 1 });
  return found[0] ?? null;
}

export async function countAdmins(reader: Pick<Transaction, 'query'>, businessId: string): Promise<number> {
  const admins = await reader.query({ collection: membersPath(businessId), where: [['role', '==', 'admin']], limit: 2 });
  return admins.length;
}

/** Accepting an invite belongs to sign-in; the admin CLI does it locally. */
export async function acceptInvite(store: DocStore, ids: IdSource, inviteId: string, email: string, now: number): Promise<MemberRecord & { businessId: string }> {
  const found = await store.query({ collection: 'invites', group: true, where: [['id', '==', inviteId]], limit: 1 });
  if (!found.length) throw notFound(`invite ${inviteId}`, 'invite');
  const invitePath = found[0].path;
  const lowered = email.trim().toLowerCase();
  const existingUsers = await store.query({ collection: 'users', where: [['email', '==', lowered]], limit: 1 });
  return store.runTransaction(async (tx) => {
    const doc = await tx.get(invitePath);
    if (!doc) throw notFound(`invite ${inviteId}`, 'invite');
    const invite = doc.data as unknown as InviteRecord;
    if (invite.status !== 'pending') throw precondition(`invite ${inviteId} is ${invite.status}`, { reason: 'inviteNotPending', params: { status: invite.status } });
    if (Date.parse(invite.expiresAt) <= now) throw precondition(`invite ${inviteId} expired at ${invite.expiresAt}`, { reason: 'inviteExpired' });
    if (invite.email !== lowered) throw new ApiError('permission-denied', `invite ${inviteId} was sent to another email address`, { reason: 'otherEmailInvite' });
    if (await findMemberByEmail(tx, invite.businessId, lowered)) throw new ApiError('already-exists', `${lowered} is already a member`, { reason: 'alreadyMember', params: { email: lowered } });
    const at = new Date(now).toISOString();
    const userId = existingUsers[0]?.id ?? ids();
    const member: MemberRecord = { userId, email: lowered, role: invite.role, joinedAt: at };
    if (!existingUsers.length) tx.set(usersPath(userId), { userId, email: lowered, emailVerified: true, createdAt: at });
    tx.set(memberPath(invite.businessId, userId), { ...member });
    tx.update(invitePath, { status: 'accepted', acceptedAt: at });
    return { ...member, businessId: invite.businessId };
  });
}
