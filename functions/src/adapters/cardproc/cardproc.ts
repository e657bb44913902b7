/**
 * cardproc: Stripe through the official `stripe` SDK (loaded lazily), pointed at CARDPROC_BASE_URL via host/port/protocol.
 * Shapes from Stripe's OpenAPI (github.com/stripe/openapi, spec3.json: reporting.report_type, reporting.report_run) and
 * docs.stripe.com/reports/report-types ("About run parameters").
 * A restricted key (rk_…) needs read access to Reporting (report types and runs: rak_report_run_read/write) and Files.
 * - connect: GET /v1/reporting/report_types/{type} for each report (their data_available_start/end give the months a
 *   run can cover) and GET /v1/account (name; optional permission; a 403 on the report types is the typical refusal).
 * - sync: POST /v1/reporting/report_runs for balance.summary.1, balance_change_from_activity.itemized.3 and
 *   payouts.itemized.3 over the month (Israel: interval_start its first instant, inclusive; interval_end the next
 *   month's first instant, exclusive) with timezone Asia/Jerusalem, so the reports' timestamps are Israel's; poll
 *   GET /v1/reporting/report_runs/{id} until succeeded, then download result.url (files.stripe.com/v1/files/{id}/contents;
 *   on a non-default base the same path on that base).
 * Stripe's run parameters take interval_start from 1 second after data_available_start and interval_end up to 1 second
 * before data_available_end (400 otherwise), so the interval is clamped inside the availability window (the statement's
 * reason says what is left out), and a month whose end is not before data_available_end waits (`pending`,
 * NotYetAvailable) until Stripe's data covers it.
 * Errors: a refusal (4xx) is failed-precondition with Stripe's message; connection errors, timeouts
 * (CARDPROC_TIMEOUT_MS) and 5xx are ProviderUnavailable.
 */
import type Stripe from 'stripe';
import { ApiError, invalid, precondition } from '../../core/errors.ts';
import { monthBounds } from '../../domain/months.ts';
import { NeedsReconnect, NotYetAvailable, ProviderUnavailable, registerStatementSource, type SourceEnv, type StatementSource } from '../../domain/statements/statementSources.ts';
import { providerFetch, providerMessage } from '../providerHttp.ts';

const DEFAULT_BASE = 'https://api.stripe.com';
export const CARDPROC_REPORTS = [
  { type: 'balance.summary.1', name: 'balance-summary' },
  { type: 'balance_change_from_activity.itemized.3', name: 'balance-change-activity' },
  { type: 'payouts.itemized.3', name: 'payouts' },
] as const;
/** How long a month past Stripe's data_available_end waits before the sync runs again (Stripe's data moves daily). */
export const CARDPROC_WAIT_SEC = 3 * 3600;
/** The zone the reports write their timestamps in (the business's). */
const REPORT_TIMEZONE = 'Asia/Jerusalem';
/** Poll delays (ms) while a report run is pending; their sum stays within a task's time limit. */
const POLL_MS = [200, 500, 1000, 2000, 5000, ...Array(40).fill(10_000)];

async function client(apiKey: string, env: SourceEnv): Promise<Stripe> {
  const { default: StripeCtor } = await import('stripe');
  const u = new URL(env.config.cardprocBaseUrl || DEFAULT_BASE);
  return new StripeCtor(apiKey, {
    host: u.hostname,
    port: u.port ? Number(u.port) : u.protocol === 'http:' ? 80 : 443,
    protocol: u.protocol === 'http:' ? 'http' : 'https',
    maxNetworkRetries: 2,
    timeout: env.config.providerTimeoutMs.cardproc,
    appInfo: { name: 'business-finance-api' },
  });
}

const redact = (s: string) => s.replace(/\b[rsp]k_(live|test)_[A-Za-z0-9*]+/g, '[key]').replace(/[\u0000-\u001f]+/g, ' ').slice(0, 300);

function stripeError(e: unknown, phase: 'connect' | 'sync'): unknown {
  if (e instanceof ApiError || e instanceof NeedsReconnect || e instanceof NotYetAvailable || e instanceof ProviderUnavailable) return e;
  const err = e as { type?: string; statusCode?: number; message?: string };
  if (err?.type === 'StripeAuthenticationError' || err?.statusCode === 401) {
    if (phase === 'connect') return invalid('apiKey', 'Stripe refused this key; check it was copied whole and is not rolled or expired', { reason: 'providerRefusedKey', params: { provider: 'Stripe' } });
    return new NeedsReconnect('Stripe refused the stored restricted key (rolled, expired or deleted)');
  }
  if (err?.type === 'StripePermissionError' || err?.statusCode === 403) {
    return precondition('the restricted key lacks Reporting access: in Stripe, edit the key and allow Read on "Report runs and report types" and "Files", then try again', { reason: 'providerNoAccess', params: { provider: 'Stripe' } });
  }
  if (err?.type === 'StripeRateLimitError' || err?.statusCode === 429) return new ApiError('resource-exhausted', 'Stripe is rate limiting requests; try again in a minute', { reason: 'providerRateLimited' });
  if (err?.type === 'StripeConnectionError') return new ProviderUnavailable('Stripe could not be reached or did not answer in time');
  if (err?.type === 'StripeAPIError' || (err?.statusCode ?? 0) >= 500) return new ProviderUnavailable(`Stripe answered ${err.statusCode ?? 'with a server error'}`);
  if (err?.type === 'StripeInvalidRequestError' || err?.type === 'StripeIdempotencyError' || (typeof err?.statusCode === 'number' && err.statusCode >= 400)) {
    return precondition(`Stripe refused the request: ${redact(String(err.message ?? ''))}`, { reason: 'providerRefused', params: { provider: 'Stripe' } });
  }
  return e;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/** The month's interval in Unix seconds (Israel's calendar month, domain/months.ts). */
function monthInterval(month: string): { start: number; end: number } {
  const { start, end } = monthBounds(month);
  return { start: Math.floor(Date.parse(start) / 1000), end: Math.floor(Date.parse(end) / 1000) };
}

/** Where every report we run has data: the latest data_available_start and the earliest data_available_end (a run
 * must start at least 1 second after the first and end at least 1 second before the second). */
async function availability(stripe: Stripe): Promise<{ start: number; end: number }> {
  let start = -Infinity;
  let end = Infinity;
  for (const r of CARDPROC_REPORTS) {
    const t = await stripe.reporting.reportTypes.retrieve(r.type);
    start = Math.max(start, t.data_available_start);
    end = Math.min(end, t.data_available_end);
  }
  return { start, end };
}

export const cardprocSource: StatementSource = {
  name: 'cardproc',
  async connect(creds, env) {
    const stripe = await client(creds.apiKey, env);
    try {
      const avail = await availability(stripe);
      let name = 'Stripe account';
      let id = 'account';
      let currency: string | undefined;
      try {
        const acct = await stripe.accounts.retrieveCurrent();
        id = acct.id;
        name = acct.settings?.dashboard?.display_name || acct.business_profile?.name || acct.id;
        currency = acct.default_currency?.toUpperCase();
      } catch (e) {
        // Reading the account is optional for a restricted key; a wrong key was already caught above.
        if ((e as { statusCode?: number }).statusCode !== 403) throw e;
      }
      // Months a run can cover: some of the month lies within the data (a first partial month is clamped; a last month
      // whose end is past data_available_end is offered and waits in sync).
      const months = env.months.filter((m) => {
        const i = monthInterval(m);
        return i.end > avail.start + 1 && i.start < avail.end - 1;
      });
      return { accounts: [{ providerAccountId: id, name, ...(currency && { currency }) }], monthsWithActivity: months };
    } catch (e) {
      throw stripeError(e, 'connect');
    }
  },
  async sync(creds, _account, month, env) {
    const stripe = await client(creds.apiKey, env);
    const whole = monthInterval(month);
    try {
      const avail = await availability(stripe);
      if (whole.end <= avail.start + 1) throw precondition(`Stripe has no report data for ${month}: this account's data starts ${at(avail.start)}`, { reason: 'providerNoData', params: { provider: 'Stripe', month } });
      if (whole.end >= avail.end) {
        throw new NotYetAvailable(`waiting for Stripe: its report data reaches ${at(avail.end)} so far, and ${month} ends ${at(whole.end)}`, CARDPROC_WAIT_SEC);
      }
      const interval = { interval_start: Math.max(whole.start, avail.start + 1), interval_end: whole.end, timezone: REPORT_TIMEZONE };
      const note = interval.interval_start > whole.start ? `Stripe's report data starts ${at(avail.start)}: the reports cover ${month} from then on` : undefined;
      const runs = [];
      for (const r of CARDPROC_REPORTS) runs.push(await stripe.reporting.reportRuns.create({ report_type: r.type, parameters: interval }));
      const files = [];
      for (let i = 0; i < runs.length; i++) {
        let run = runs[i];
        for (let p = 0; run.status === 'pending'; p++) {
          if (p >= POLL_MS.length) throw new ProviderUnavailable(`Stripe's ${CARDPROC_REPORTS[i].type} report is still being built`);
          await sleep(POLL_MS[p]);
          run = await stripe.reporting.reportRuns.retrieve(run.id);
        }
        if (run.status !== 'succeeded' || !run.result) throw precondition(`Stripe could not build the ${CARDPROC_REPORTS[i].type} report: ${run.error ?? run.status}`, { reason: 'providerRefused', params: { provider: 'Stripe' } });
        const url = new URL(run.result.url ?? `https://files.stripe.com/v1/files/${run.result.id}/contents`);
        const base = env.config.cardprocBaseUrl && env.config.cardprocBaseUrl !== DEFAULT_BASE ? env.config.cardprocBaseUrl : `${url.protocol}//${url.host}`;
        const res = await providerFetch(`${base}${url.pathname}`, { headers: { authorization: `Bearer ${creds.apiKey}` } }, { provider: 'Stripe', timeoutMs: env.config.providerTimeoutMs.cardproc });
        if (res.status === 401) throw new NeedsReconnect('Stripe refused the stored restricted key (rolled, expired or deleted)');
        if (res.status === 403) throw precondition('the restricted key cannot read Files: in Stripe, edit the key and allow Read on "Files", then sync again', { reason: 'providerNoAccess', params: { provider: 'Stripe' } });
        if (res.status === 429) throw new ApiError('resource-exhausted', 'Stripe is rate limiting requests; try again in a minute', { reason: 'providerRateLimited' });
        if (!res.ok) throw precondition(`Stripe refused the report file (HTTP ${res.status}): ${redact(providerMessage(res, [creds.apiKey]))}`, { reason: 'providerRefused', params: { provider: 'Stripe' } });
        files.push({ fileName: `stripe-${month}-${CARDPROC_REPORTS[i].name}.csv`, contentType: 'text/csv', bytes: res.bytes });
      }
      return { files, ...(note && { note }) };
    } catch (e) {
      throw stripeError(e, 'sync');
    }
  },
};

registerStatementSource(cardprocSource);
