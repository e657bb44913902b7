/**
 * Typed fetch client of the Israel Tax Authority (ITA) "Israel Invoices" API, as its public
 * material describes it (see docs/decisions.md, "Tax authority"):
 * - OAuth 2.0 authorization code on `{authUrl}/authorize` and `{authUrl}/token`, form-encoded, as the ITA's official
 *   sample does it (github.com/ISRTaxesOpenAPI/nodeJSExample): the code exchange authenticates the client with HTTP
 *   Basic (getToken.js), the refresh sends client_id and client_secret in the body (createRequestForRefreshToken.js);
 * - `POST {baseUrl}/invoice-information/v1/details` with a bearer token: the invoice
 *   the ITA allocated a confirmation (allocation) number to, with its amounts in shekels.
 * Nothing here logs or echoes a token, a code or the client secret.
 */
import { ItaError, registerTaxAuthority, type ItaClient, type ItaInvoiceDetails, type ItaSettings, type ItaTokens } from '../../ports/taxAuthority.ts';

export { ItaError, type ItaClient, type ItaFailure, type ItaInvoiceDetails, type ItaSettings, type ItaTokens } from '../../ports/taxAuthority.ts';

const trimSlash = (u: string) => u.replace(/\/+$/, '');

/** A short, printable excerpt of a provider's error text (it never carries our secrets). */
const excerpt = (s: unknown) => String(s ?? '').replace(/[\u0000-\u001f]+/g, ' ').slice(0, 200);

/** Field lookup that ignores case: the ITA mixes `Message`/`message` and `VAT_Amount`/`vat_amount`. */
function field(obj: unknown, name: string): unknown {
  if (!obj || typeof obj !== 'object') return undefined;
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === want) return v;
  return undefined;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

/** Shekels (number or numeric text, up to agorot) to integer agorot. */
function agorot(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.round(n * 100) : null;
}

/** VAT and company numbers travel as JSON numbers on the ITA wire. */
const vatNumber = (digits: string) => Number(digits);

export function itaClient(settings: ItaSettings, fetchImpl: typeof fetch = fetch): ItaClient {
  const authUrl = trimSlash(settings.authUrl);
  const baseUrl = trimSlash(settings.baseUrl);

  async function send(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
    let res: Response;
    try {
      res = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(settings.timeoutMs) });
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      throw new ItaError('unavailable', null, timedOut ? `no answer within ${settings.timeoutMs} ms` : 'could not reach the tax authority');
    }
    const raw = await res.text().catch(() => '');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      // Gateways answer some errors in HTML or text; keep the text.
    }
    return { status: res.status, body };
  }

  /** The token endpoint; `basic` puts the client's credentials in an Authorization header instead of the body. */
  async function token(form: Record<string, string>, basic: boolean): Promise<ItaTokens> {
    const client: Record<string, string> = basic ? {} : { client_id: settings.clientId, client_secret: settings.clientSecret };
    // RFC 6749 §2.3.1: each part form-urlencoded before joining.
    const credentials = `${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`;
    const { status, body } = await send(`${authUrl}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(basic && { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` }),
      },
      body: new URLSearchParams({ ...form, ...client, scope: settings.scope }).toString(),
    });
    if (status >= 500 || status === 429) throw new ItaError('unavailable', status, `token endpoint answered ${status}`);
    if (status < 200 || status >= 300) {
      const code = text(field(body, 'error')) ?? '';
      const detail = excerpt(field(body, 'error_description') ?? code ?? `HTTP ${status}`);
      if (code === 'invalid_grant') throw new ItaError('invalid_grant', status, detail);
      if (code === 'invalid_client' || code === 'unauthorized_client' || status === 401) throw new ItaError('invalid_client', status, detail);
      throw new ItaError('refused', status, detail || `HTTP ${status}`);
    }
    const accessToken = text(field(body, 'access_token'));
    if (!accessToken) throw new ItaError('bad_reply', status, 'token answer without access_token');
    const expires = Number(field(body, 'expires_in'));
    return {
      accessToken,
      refreshToken: text(field(body, 'refresh_token')),
      expiresInSec: Number.isFinite(expires) && expires > 0 ? expires : null,
    };
  }

  return {
    authorizeUrl({ redirectUri, state }) {
      const q = new URLSearchParams({ response_type: 'code', client_id: settings.clientId, redirect_uri: redirectUri, scope: settings.scope, state });
      return `${authUrl}/authorize?${q}`;
    },

    exchangeCode: ({ code, redirectUri }) => token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }, true),

    refresh: (refreshToken) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }, false),

    async invoiceDetails(accessToken, q) {
      const payload: Record<string, unknown> = { Customer_VAT_Number: vatNumber(q.customerVatNumber), Confirmation_Number: q.confirmationNumber };
      if (q.vatNumber) payload.Vat_Number = vatNumber(q.vatNumber);
      const { status, body } = await send(`${baseUrl}/invoice-information/v1/details`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(payload),
      });
      if (status === 404) return null;
      if (status === 401) throw new ItaError('unauthorized', status, 'access token refused');
      if (status === 403 || status === 406) throw new ItaError('forbidden', status, excerpt(text(field(body, 'Message')) ?? `HTTP ${status}`));
      if (status >= 500 || status === 429) throw new ItaError('unavailable', status, `invoice-information answered ${status}`);
      if (status < 200 || status >= 300) throw new ItaError('refused', status, excerpt(text(field(body, 'Message')) ?? text(field(body, 'moreInformation')) ?? `HTTP ${status}`));
      const m = field(body, 'Message');
      // Anything but the documented details object is not read as "not found": a verdict must rest on an answer.
      if (!m || typeof m !== 'object' || Array.isArray(m)) throw new ItaError('bad_reply', status, 'invoice-information answered without invoice details');
      const details: ItaInvoiceDetails = {
        vatNumber: text(field(m, 'Vat_Number')),
        customerVatNumber: text(field(m, 'Customer_VAT_Number')),
        invoiceDate: text(field(m, 'Invoice_Date')),
        invoiceReferenceNumber: text(field(m, 'Invoice_Reference_Number')),
        beforeVatAgorot: agorot(field(m, 'Payment_Amount')),
        vatAgorot: agorot(field(m, 'VAT_Amount')),
        totalAgorot: agorot(field(m, 'Payment_Amount_Including_VAT')),
      };
      if (details.totalAgorot === null && (details.beforeVatAgorot === null || details.vatAgorot === null)) {
        throw new ItaError('bad_reply', status, 'invoice-information answered without amounts');
      }
      return details;
    },
  };
}

/** The tax-authority port's client, registered on import. */
registerTaxAuthority(itaClient);
