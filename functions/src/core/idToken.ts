import { firebaseAppOptions } from './firebaseApp.ts';
import { ApiError } from './errors.ts';
import { memberPath, SIGN_IN_OPERATIONS, type AuthOptions, type MemberRecord } from './members.ts';
import type { Caller } from './context.ts';
import type { DocStore } from '../ports/store.ts';

/** The caller name activity rows show for a dashboard (ID token) call. */
export const DASHBOARD_KEY_NAME = 'dashboard';
const BUSINESS_ID_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;

interface UserRecord {
  userId: string;
  email: string;
  firebaseUid?: string;
}

/** Whether a listening address is reachable from this machine alone (`0.0.0.0`, `::` and real addresses are not). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Cloud Functions (deployed, or its emulator) names the function it runs in these. */
export const onCloudFunctions = (env: NodeJS.ProcessEnv = process.env) => Boolean(env.K_SERVICE || env.FUNCTION_TARGET);

/**
 * Why the Auth emulator's tokens cannot be trusted on this server, or null when they can. The emulator's
 * ID tokens are unsigned (alg "none"): anyone who reaches the API can forge one for any email, so they are
 * accepted only by a local server listening on loopback alone. `host` is the address actually listened on
 * where it is known: HOST is only what was asked for, and on Cloud Functions it says nothing at all.
 */
export function emulatorTokensRefusal(host: string | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  if (!env.FIREBASE_AUTH_EMULATOR_HOST) return null;
  if (onCloudFunctions(env)) {
    return 'Auth emulator sign-in is refused: FIREBASE_AUTH_EMULATOR_HOST is set on Cloud Functions (K_SERVICE or FUNCTION_TARGET is set), where the API is reachable by anyone, and the emulator\'s ID tokens are unsigned, so anyone could forge one for any email. Remove FIREBASE_AUTH_EMULATOR_HOST from the functions\' environment (functions/.env).';
  }
  if (isLoopbackHost(host)) return null;
  return `Auth emulator sign-in is refused: the server listens on ${host ?? 'an unknown address'}, not on loopback alone, and the emulator's ID tokens are unsigned, so anyone reaching the server could forge one for any email. Listen on 127.0.0.1 (HOST unset), or use a real Firebase project.`;
}

/** Loaded on the first ID token only, so API-key calls and cold starts never pay for firebase-admin. */
async function verify(token: string) {
  const [{ getApps, initializeApp }, { getAuth }] = await Promise.all([import('firebase-admin/app'), import('firebase-admin/auth')]);
  try {
    if (!getApps().length) initializeApp(firebaseAppOptions());
    // With FIREBASE_AUTH_EMULATOR_HOST set, firebase-admin accepts the emulator's unsigned tokens.
    return await getAuth().verifyIdToken(token);
  } catch {
    throw new ApiError('unauthenticated', 'invalid or expired ID token', { reason: 'signInInvalid' });
  }
}

/**
 * Maps a verified Firebase user to our user: by `firebaseUid`, else (first sign-in) by verified email,
 * recording the uid then. An email already bound to another Firebase account is refused, except for the
 * Auth emulator's tokens: an emulator that lost its accounts (a restart without its export, a kill -9) gives
 * the same email a new uid, and its tokens already prove no more than an email (they are unsigned, accepted
 * on loopback alone), so re-linking by that verified email grants nothing a forged token could not.
 */
async function findUser(store: DocStore, uid: string, email: string, relink: boolean): Promise<UserRecord | null> {
  const byUid = await store.query({ collection: 'users', where: [['firebaseUid', '==', uid]], limit: 1 });
  if (byUid.length) return byUid[0].data as unknown as UserRecord;
  const byEmail = await store.query({ collection: 'users', where: [['email', '==', email]], limit: 1 });
  if (!byEmail.length) return null;
  const user = byEmail[0].data as unknown as UserRecord;
  if (user.firebaseUid && user.firebaseUid !== uid && !relink) throw new ApiError('unauthenticated', 'this email address is linked to another sign-in account', { reason: 'emailLinkedElsewhere' });
  await store.update(byEmail[0].path, { firebaseUid: uid });
  return { ...user, userId: user.userId ?? byEmail[0].id, firebaseUid: uid };
}

export async function authenticateIdToken(store: DocStore, token: string, opts: AuthOptions): Promise<Caller> {
  if (emulatorTokensRefusal(opts.host)) throw new ApiError('unauthenticated', 'ID tokens of the Auth emulator are accepted only while the server listens on loopback alone', { reason: 'signInInvalid' });
  const decoded = await verify(token);
  if (!decoded.email || decoded.email_verified !== true) throw new ApiError('unauthenticated', 'ID token: sign in with a verified email address', { reason: 'emailNotVerified' });
  const email = decoded.email.trim().toLowerCase();
  const signInOnly = opts.operation !== undefined && SIGN_IN_OPERATIONS.has(opts.operation);
  // Before joining any business: only the sign-in operations, with no business and no role to speak of.
  const outsider = (why: string, userId = ''): Caller => {
    if (!signInOnly) throw new ApiError('permission-denied', why, { reason: 'notAMember' });
    return { businessId: '', userId, email, role: 'user', keyName: DASHBOARD_KEY_NAME, firebaseUid: decoded.uid };
  };
  if (opts.businessId !== undefined && !BUSINESS_ID_SHAPE.test(opts.businessId)) throw new ApiError('invalid-argument', 'X-Business-Id: not a business id', { reason: 'badFormat', params: { format: 'business id' } });
  // Emulator tokens reach this line on loopback alone (the refusal above): re-link by email for them only.
  const user = await findUser(store, decoded.uid, email, Boolean(process.env.FIREBASE_AUTH_EMULATOR_HOST));
  if (!user) return outsider('this account is not a member of any business; ask an admin for an invite');
  let member: MemberRecord;
  let businessId: string;
  if (opts.businessId !== undefined) {
    const doc = await store.get(memberPath(opts.businessId, user.userId));
    if (!doc) return outsider('X-Business-Id: you are not a member of this business');
    member = doc.data as unknown as MemberRecord;
    businessId = opts.businessId;
  } else {
    const found = await store.query({ collection: 'members', group: true, where: [['userId', '==', user.userId]], limit: 2 });
    if (!found.length) return outsider('this account is not a member of any business; ask an admin for an invite');
    // A member of several businesses who has not picked one yet (myBusinesses lists them).
    if (found.length > 1 && signInOnly) return outsider('', user.userId);
    if (found.length > 1) throw new ApiError('invalid-argument', 'X-Business-Id: you belong to several businesses; send the header X-Business-Id with the one to act in', { reason: 'chooseBusiness' });
    member = found[0].data as unknown as MemberRecord;
    businessId = found[0].path.split('/')[1];
  }
  return { businessId, userId: user.userId, email: member.email, role: member.role, keyName: DASHBOARD_KEY_NAME, firebaseUid: decoded.uid };
}
