import type { ErrorDetails, ErrorReason, Noun, Why } from './errorReasons.ts';

/** Error codes of spec §7 plus the rest of the Firebase family (DESIGN.md), with their HTTP statuses. */
export const ERROR_STATUS = {
  'invalid-argument': 400,
  'failed-precondition': 400,
  'out-of-range': 400,
  unauthenticated: 401,
  'permission-denied': 403,
  'not-found': 404,
  'already-exists': 409,
  aborted: 409,
  'resource-exhausted': 429,
  internal: 500,
  unavailable: 503,
  'deadline-exceeded': 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The reason of an error whose throw names none: the generic one of its code. */
const CODE_REASONS: Record<ErrorCode, ErrorReason> = {
  'invalid-argument': 'invalidValue',
  'failed-precondition': 'notPossibleNow',
  'out-of-range': 'outOfRange',
  unauthenticated: 'unauthenticated',
  'permission-denied': 'permissionDenied',
  'not-found': 'notFound',
  'already-exists': 'alreadyExists',
  aborted: 'conflictRetry',
  'resource-exhausted': 'limitReached',
  internal: 'internal',
  unavailable: 'unavailable',
  'deadline-exceeded': 'timeout',
};

/** Messages name their field first (`supplierPhone: …`): that field goes into the details too. */
const FIELD_FIRST = /^([A-Za-z][\w.]*): /;

/**
 * An error meant for the caller: its code, message and details go out as they are. `details.reason` is always
 * set (the type requires it): a throw that names no reason gets the generic one of its code.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  constructor(code: ErrorCode, message: string, why?: Why & { field?: string }) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    const field = why?.field ?? FIELD_FIRST.exec(message)?.[1];
    const details = (why ?? { reason: CODE_REASONS[code] }) as ErrorDetails;
    this.details = field && field !== 'body' ? { ...details, field } : details;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  /** The envelope's `error`: `{code, message, details}`. */
  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

export const invalid = (field: string, problem: string, why: Why = { reason: 'invalidValue' }) =>
  new ApiError('invalid-argument', `${field}: ${problem}`, { ...why, field });
/** `notFound('folderId: folder f1', 'folder')`: the noun names what the dashboard words in its language. */
export const notFound = (what: string, why: Why | Noun) =>
  new ApiError('not-found', `${what} not found`, typeof why === 'string' ? { reason: 'notFoundWhat', params: { what: why } } : why);
export const precondition = (message: string, why: Why = { reason: 'notPossibleNow' }) => new ApiError('failed-precondition', message, why);

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
