import type { Role } from './context.ts';

/** A business's members and what a surface tells authentication: shared by auth.ts (API keys) and idToken.ts (signed-in users). */

export interface MemberRecord {
  userId: string;
  email: string;
  role: Role;
  joinedAt: string;
}

export const memberPath = (businessId: string, userId: string) => `businesses/${businessId}/members/${userId}`;

/** What a surface passes besides Authorization; only the ID-token branch reads it. */
export interface AuthOptions {
  /** The `X-Business-Id` header: which business a signed-in member of several acts in. */
  businessId?: string;
  /** The operation asked for: a signed-in user who belongs to no business may still call `acceptInvite`. */
  operation?: string;
  /** The address the server listens on: the Auth emulator's unsigned tokens count only on loopback. */
  host?: string;
}

/** Operations a signed-in user may call before joining any business (their caller has `businessId` ''). */
export const SIGN_IN_OPERATIONS = new Set(['acceptInvite', 'invitePreview', 'myBusinesses']);
