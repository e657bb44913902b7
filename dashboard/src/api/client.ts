import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';
import type { ErrorDetails } from './errorTypes.ts';
import { OPERATION_FLAGS, type OperationName } from './flags.ts';

/**
 * The only way the dashboard talks to the API: openapi-fetch over the types generated from the service's
 * OpenAPI document (`npm run -w dashboard generate`). `call` unwraps the `{ok, result}` envelope and throws
 * `ApiError` with the API's code, message and details.
 */
type Post<O extends OperationName> = paths[`/${O}`] extends { post: infer P } ? P : never;
export type Input<O extends OperationName> = Post<O> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
export type Output<O extends OperationName> = Post<O> extends { responses: { 200: { content: { 'application/json': { result: infer R } } } } } ? R : never;

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: ErrorDetails,
  ) {
    super(message);
  }
}

export interface Session {
  /** A fresh Firebase ID token (the SDK refreshes it before it expires); `force` asks for a new one. */
  token(force?: boolean): Promise<string | null>;
  /** The business picked by a member of several (sent as X-Business-Id). */
  businessId(): string | null;
  /** The API said the sign-in is no longer good. */
  onUnauthenticated(): void;
}

let session: Session | null = null;
export const setSession = (s: Session | null) => void (session = s);

const client = createClient<paths>({ baseUrl: '/v1' });

const SIGN_IN_OPERATIONS = new Set<OperationName>(['myBusinesses', 'invitePreview', 'acceptInvite']);

async function once<O extends OperationName>(op: O, body: Input<O>, force: boolean): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  const token = await session?.token(force);
  if (token) headers.authorization = `Bearer ${token}`;
  const businessId = session?.businessId();
  if (businessId && !SIGN_IN_OPERATIONS.has(op)) headers['x-business-id'] = businessId;
  // Mutations carry an idempotency key: a retried request never runs twice.
  if (!OPERATION_FLAGS[op].readOnly) headers['idempotency-key'] = crypto.randomUUID();
  let res: { data?: unknown; error?: unknown; response: Response };
  try {
    res = await (client.POST as (path: string, init: { body: unknown; headers: Record<string, string> }) => Promise<typeof res>)(`/${op}`, { body: body ?? {}, headers });
  } catch {
    throw new ApiError('network', 'network', 0);
  }
  return { status: res.response.status, json: res.data ?? res.error };
}

export async function call<O extends OperationName>(op: O, body: Input<O>): Promise<Output<O>> {
  let r = await once(op, body, false);
  // An ID token can expire between the SDK's refresh and the request: one retry with a forced refresh.
  if (r.status === 401 && session) r = await once(op, body, true);
  if (r.json && r.json.ok === true) return r.json.result as Output<O>;
  const error = r.json?.error ?? { code: 'internal', message: `HTTP ${r.status}` };
  if (r.status === 401) session?.onUnauthenticated();
  throw new ApiError(error.code, error.message, r.status, error.details);
}

export const isDangerous = (op: OperationName) => OPERATION_FLAGS[op].dangerous;
export type { OperationName };
