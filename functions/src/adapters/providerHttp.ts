/**
 * HTTP calls to the statement providers (Mercury, Wise, Cardcom, Upwork, Stripe's file downloads), with one rule set:
 * - every call has a time limit (the provider's setting, default PROVIDER_TIMEOUT_MS) carried by an AbortSignal that
 *   also covers reading the body, so a provider that accepts the connection and never answers cannot hold a task;
 * - a network failure, a timeout or a 5xx is `ProviderUnavailable` (transient: the sync task retries it);
 * - 429 with Retry-After is waited out within a budget, then returned for the adapter to report;
 * - any other status is returned, with the body read, for the adapter to turn into the provider's own refusal.
 */
import { ProviderUnavailable } from '../domain/statements/statementSources.ts';

export interface ProviderResponse {
  status: number;
  ok: boolean;
  headers: Headers;
  bytes: Buffer;
  text(): string;
  /** The body as JSON, or null when it is not JSON. */
  json<T = unknown>(): T | null;
}

export interface ProviderCallOptions {
  /** The provider's name in messages ("Mercury"). */
  provider: string;
  timeoutMs: number;
  /** The longest total Retry-After wait for 429s within this call. */
  retryBudgetMs?: number;
  /** Cancels the call from outside (combined with the time limit). */
  signal?: AbortSignal;
  /** The largest body accepted; a bigger one is refused as unreadable rather than held in memory. */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 60 * 1024 * 1024;

async function readCapped(res: Response, maxBytes: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await res.body.cancel().catch(() => undefined);
      throw new ProviderUnavailable(`the answer is larger than ${Math.round(maxBytes / 1048576)} MB`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** One request, its body read, within `timeoutMs`. */
async function once(url: string, init: RequestInit, o: ProviderCallOptions): Promise<ProviderResponse> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([timeout, o.signal]) : timeout;
  try {
    const res = await fetch(url, { ...init, signal });
    const bytes = await readCapped(res, o.maxBytes ?? DEFAULT_MAX_BYTES);
    return {
      status: res.status,
      ok: res.ok,
      headers: res.headers,
      bytes,
      text: () => bytes.toString('utf8'),
      json<T>() {
        try {
          return JSON.parse(bytes.toString('utf8')) as T;
        } catch {
          return null;
        }
      },
    };
  } catch (e) {
    if (e instanceof ProviderUnavailable) throw new ProviderUnavailable(`${o.provider}: ${e.message}`);
    if (timeout.aborted) throw new ProviderUnavailable(`${o.provider} did not answer within ${Math.round(o.timeoutMs / 100) / 10} s`);
    if (o.signal?.aborted) throw new ProviderUnavailable(`the call to ${o.provider} was cancelled`);
    // The cause's text (a socket error) says nothing the user can act on and may name internal hosts.
    throw new ProviderUnavailable(`${o.provider} could not be reached`);
  }
}

/**
 * The call, retried after 429 + Retry-After while the total wait stays within the budget (default 20 s); a 5xx is
 * ProviderUnavailable naming the status. Other statuses come back for the adapter.
 */
export async function providerFetch(url: string, init: RequestInit, o: ProviderCallOptions): Promise<ProviderResponse> {
  const budget = o.retryBudgetMs ?? 20_000;
  let waited = 0;
  for (;;) {
    const res = await once(url, init, o);
    if (res.status >= 500) throw new ProviderUnavailable(`${o.provider} answered ${res.status}`);
    if (res.status !== 429) return res;
    const secs = Number(res.headers.get('retry-after') ?? '1');
    const ms = Math.max(0, Number.isFinite(secs) ? secs * 1000 : 1000);
    if (waited + ms > budget) return res;
    await new Promise((r) => setTimeout(r, ms));
    waited += ms;
  }
}

/**
 * The provider's own words from an error body, for the user: the first message found in the usual shapes
 * (`{errors:{message}}`, `{errors:[{message}]}`, `{error:{message}}`, `{error_description}`, `{message}`, `{Description}`),
 * on one line, cut to 300 characters, with `secrets` blanked out.
 */
export function providerMessage(res: ProviderResponse, secrets: string[] = []): string {
  const body = res.json<Record<string, unknown>>();
  const pick = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
  const fromObj = (o: unknown): string | null => {
    if (!o || typeof o !== 'object') return null;
    const r = o as Record<string, unknown>;
    return pick(r.message) ?? pick(r.Message) ?? pick(r.error_description) ?? pick(r.Description) ?? pick(r.description) ?? null;
  };
  let msg: string | null = null;
  if (body && typeof body === 'object') {
    const errors = (body as Record<string, unknown>).errors;
    const error = (body as Record<string, unknown>).error;
    msg =
      (Array.isArray(errors) ? errors.map(fromObj).find(Boolean) ?? null : fromObj(errors)) ??
      fromObj(error) ??
      fromObj(body) ??
      pick(error) ??
      (Array.isArray(errors) ? errors.map((e) => pick((e as Record<string, unknown>)?.code)).find(Boolean) ?? null : null);
  } else if (!res.headers.get('content-type')?.includes('html')) {
    msg = pick(res.text());
  }
  let s = (msg ?? `HTTP ${res.status}`).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  for (const secret of secrets) if (secret && secret.length >= 4) s = s.split(secret).join('…');
  return s.slice(0, 300);
}
