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

/** An error meant for the caller: its code and message go out as they are. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const invalid = (field: string, problem: string) => new ApiError('invalid-argument', `${field}: ${problem}`);
export const notFound = (what: string) => new ApiError('not-found', `${what} not found`);
export const precondition = (message: string) => new ApiError('failed-precondition', message);

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
