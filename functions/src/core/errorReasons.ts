/**
 * The closed list of error reasons: every error's `details.reason` is one of these, so a client can word it in
 * its own language (the dashboard's i18n/errors.he.ts and errors.en.ts) with `details.params` filled in. Each
 * names its params and an English template; the OpenAPI document lists them as the enum of `details.reason`.
 */
export const ERROR_REASONS = {
  // Schema validation, one per kind of problem.
  required: { params: [], en: 'is required' },
  unknownField: { params: [], en: 'is not a field of this operation' },
  empty: { params: [], en: 'must not be empty' },
  tooLong: { params: ['max'], en: 'at most {max} characters' },
  tooShort: { params: ['min'], en: 'at least {min} characters' },
  tooMany: { params: ['max'], en: 'at most {max} items' },
  tooFew: { params: ['min'], en: 'at least {min} items' },
  tooLarge: { params: ['max'], en: 'must be at most {max}' },
  tooSmall: { params: ['min'], en: 'must be at least {min}' },
  notInteger: { params: [], en: 'expected a whole number' },
  notIntegerAgorot: { params: [], en: 'expected an integer: amounts are in agorot, e.g. 1250 for 12.50' },
  notOneOf: { params: ['options'], en: 'expected one of {options}' },
  badEmail: { params: [], en: 'expected an email address' },
  badFormat: { params: ['format'], en: 'not in the expected format ({format})' },
  wrongType: { params: ['expected'], en: 'expected {expected}' },
  invalidValue: { params: [], en: 'is not valid' },
  // The domain's own refusals a user meets.
  supplierContactRequired: { params: [], en: 'a phone or an email of the supplier is required' },
  invalidPhone: { params: ['value'], en: '"{value}" is not a valid phone number' },
  phoneNotMobile: { params: ['value'], en: '{value} is not a mobile number, which WhatsApp needs' },
  invalidEmail: { params: ['value'], en: '"{value}" is not a valid email address' },
  digitsCount: { params: ['value', 'min', 'max'], en: '"{value}" is not valid: expected {min} to {max} digits' },
  bankCodeDigits: { params: ['value', 'digits'], en: '"{value}" is not valid: expected {digits} digits' },
  bitShekelsOnly: { params: ['currency'], en: 'Bit pays shekels only; a {currency} payment needs bank' },
  openAmountNotZero: { params: [], en: 'must be 0 when the supplier fills the amount' },
  amountNotPositive: { params: [], en: 'must be a positive amount' },
  supplierExists: { params: ['key'], en: 'a supplier with key {key} already exists' },
  paymentStatusNotAllowed: { params: ['status', 'allowed'], en: 'not possible while the payment is {status}; allowed from {allowed}' },
  settingLocked: { params: ['status'], en: 'this setting cannot change now; the payment is {status}' },
  channelNeedsPhone: { params: [], en: 'sending by WhatsApp needs the supplier phone' },
  channelNeedsEmail: { params: [], en: 'sending by email needs the supplier email' },
  amountNotSet: { params: [], en: 'the supplier has not filled the amount yet' },
  revertNeedsSent: { params: [], en: 'the supplier never gave payout details, so only a revert to sent is possible' },
  fileTypeNotAccepted: { params: ['types'], en: 'this file type is not accepted; send one of {types}' },
  fileEmpty: { params: [], en: 'the file is empty' },
  fileTooLarge: { params: ['maxMb'], en: 'the file is over {maxMb} MB' },
  fileContentMismatch: { params: [], en: 'the file content does not match its type' },
  fileUnreadable: { params: [], en: 'the file cannot be read' },
  mergeIntoSelf: { params: [], en: 'a supplier cannot be merged into itself' },
  alreadyMerged: { params: ['into'], en: 'already merged into {into}' },
  alreadyMember: { params: ['email'], en: '{email} is already a member' },
  invitePending: { params: ['email'], en: '{email} already has a pending invite' },
  inviteNotPending: { params: ['status'], en: 'the invite is {status}; only a pending one can change' },
  lastAdmin: { params: [], en: 'the last admin cannot be removed or demoted' },
  notARealDate: { params: ['value'], en: '"{value}" is not a real date' },
  dateRangeReversed: { params: [], en: 'the start date is after the end date' },
  noRecipients: { params: [], en: 'no recipients were given or set' },
  secretKeyRefused: { params: [], en: 'a secret key gives full access; use a restricted key' },
  restrictedKeyFormat: { params: [], en: 'not a restricted key' },
  aiNotConfigured: { params: [], en: 'AI is not configured' },
  nothingToChange: { params: [], en: 'send at least one field to change' },
  notBusinessNumber: { params: ['value'], en: '"{value}" is not an Israeli business number' },
  uploadUsed: { params: [], en: 'this upload was already used' },
  uploadExpired: { params: [], en: 'this upload expired' },
  slugTaken: { params: ['slug'], en: '"{slug}" is taken' },
  tooManyApiKeys: { params: [], en: 'the most live API keys are in use; revoke one first' },
  appRequires: { params: ['app', 'needed'], en: 'the {app} app requires the {needed} app' },
  appRequiredBy: { params: ['app', 'dependant'], en: 'the {dependant} app requires the {app} app' },
  builtInFolder: { params: [], en: 'built-in folders cannot be moved or deleted' },
  folderCycle: { params: [], en: 'a folder cannot go inside itself' },
  folderNameTaken: { params: ['name'], en: 'a folder named "{name}" already exists there' },
  tooManyFolders: { params: ['max'], en: 'at most {max} folders' },
  tooManyRules: { params: ['max'], en: 'at most {max} folder rules' },
  tooManyEmployees: { params: ['max'], en: 'at most {max} employees' },
  requiredWith: { params: ['other'], en: 'required with {other}' },
  notBoth: { params: ['other'], en: 'send this or {other}, not both' },
  fileNoLongerStored: { params: [], en: 'the file is no longer stored' },
  noInvoiceAttached: { params: [], en: 'the payment has no invoice attached' },
  automationPaused: { params: [], en: 'the automation is paused; resume it first' },
  cannotDeleteStatementsAutomation: { params: [], en: 'the statements automation cannot be deleted; pause it instead' },
  tooManyAutomations: { params: ['max'], en: 'at most {max} automations' },
  automationExists: { params: [], en: 'an automation already watches this mailbox or label' },
  providerNotConfigured: { params: [], en: 'this connection is not set up on the server' },
  providerRateLimited: { params: [], en: 'the provider is limiting requests; try again in a minute' },
  needsReconnect: { params: [], en: 'the connection must be made again' },
  notConnected: { params: [], en: 'not connected yet' },
  inviteExpired: { params: [], en: 'the invite expired' },
  consentMissing: { params: [], en: 'no tax authority consent was given' },
  consentExpired: { params: [], en: 'the tax authority consent expired' },
  signatureMissing: { params: [], en: 'no signature, stamp or name is stored for the form' },
  // The API's generic refusals.
  notFound: { params: [], en: 'not found' },
  unknownOperation: { params: ['name'], en: 'unknown operation {name}' },
  unknownPath: { params: [], en: 'unknown path' },
  notPossibleNow: { params: [], en: 'cannot be done in the current state' },
  outOfRange: { params: [], en: 'out of range' },
  alreadyExists: { params: [], en: 'already exists' },
  conflictRetry: { params: [], en: 'a conflicting request is running; retry in a moment' },
  unauthenticated: { params: [], en: 'not signed in' },
  missingKey: { params: [], en: 'no API key or sign-in was sent' },
  invalidKey: { params: [], en: 'invalid API key' },
  keyRevoked: { params: [], en: 'this API key was revoked' },
  signInInvalid: { params: [], en: 'the sign-in is invalid or expired' },
  permissionDenied: { params: [], en: 'not allowed' },
  adminOnly: { params: [], en: 'requires the admin role' },
  rateLimited: { params: ['limit', 'retryAfterSec'], en: 'rate limit of {limit} requests a minute; retry in {retryAfterSec} s' },
  quotaExhausted: { params: ['quota'], en: 'the daily {quota} quota is used up; it resets at midnight in Israel' },
  limitReached: { params: [], en: 'a limit was reached' },
  badJson: { params: [], en: 'the body is not a JSON object' },
  bodyRequired: { params: [], en: 'a POST needs a body; send {}' },
  bodyTooLarge: { params: ['max'], en: 'the body is over the {max} byte limit' },
  methodNotAllowed: { params: ['allow'], en: 'use {allow}' },
  internal: { params: [], en: 'internal error' },
  unavailable: { params: [], en: 'the service is unavailable; retry later' },
  timeout: { params: [], en: 'the request took too long' },
} as const satisfies Record<string, { params: readonly string[]; en: string }>;

export type ErrorReason = keyof typeof ERROR_REASONS;
export const REASON_NAMES = Object.keys(ERROR_REASONS) as ErrorReason[];

type ParamValue = string | number | string[];
type ParamsOf<R extends ErrorReason> = (typeof ERROR_REASONS)[R]['params'][number];

/** A reason with exactly its catalogue params (none for a reason without params). */
export type Why = {
  [R in ErrorReason]: ParamsOf<R> extends never ? { reason: R; params?: undefined } : { reason: R; params: Record<ParamsOf<R>, ParamValue> };
}[ErrorReason];

export type ErrorDetails = Why & { field?: string };

/** The English wording of a reason with its params, as the OpenAPI document shows it. */
export function reasonText(d: { reason: ErrorReason; params?: Record<string, ParamValue> }): string {
  return ERROR_REASONS[d.reason].en.replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = d.params?.[k];
    return v === undefined ? `{${k}}` : Array.isArray(v) ? v.join(', ') : String(v);
  });
}
