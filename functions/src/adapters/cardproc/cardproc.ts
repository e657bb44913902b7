/**
 * cardproc: Stripe through the official `stripe` SDK (loaded lazily), pointed at CARDPROC_BASE_URL via host/port/protocol.
 * A restricted key (rk_…) needs read access to Reporting (report types and runs: rak_report_run_read/write) and Files.
 * - connect: GET /v1/account (name; optional permission) and GET /v1/reporting/report_types/balance.summary.1
 *   (data_available_start/end give the months with data; a 403 here is the typical refusal: no Reporting access).
 * - sync: POST /v1/reporting/report_runs for balance.summary.1, balance_change_from_activity.itemized.3 and
 *   payouts.itemized.3 over the month (Israel), poll GET /v1/reporting/report_runs/{id} until succeeded, then download
 *   result.url (files.stripe.com/v1/files/{id}/contents; on a non-default base the same path on that base).
 */
import type Stripe from 'stripe';
import { ApiError, invalid, precondition } from '../../core/errors.ts';
import { addMonths, monthBounds } from '../../domain/months.ts';
import { NeedsReconnect, registerStatementSource, retryAfterFetch, type SourceEnv, type StatementSource } from '../../domain/statements/statementSources.ts';

const DEFAULT_BASE = 'https://api.stripe.com';
export const CARDPROC_REPORTS = [
  { type: 'balance.summary.1', name: 'balance-summary' },
  { type: 'balance_change_from_activity.itemized.3', name: 'balance-change-activity' },
  { type: 'payouts.itemized.3', name: 'payouts' },
] as const;
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
    timeout: 30_000,
    appInfo: { name: 'business-finance-api' },
  });
}

function stripeError(e: unknown, phase: 'connect' | 'sync'): unknown {
  const err = e as { type?: string; statusCode?: number; message?: string };
  if (err?.type === 'StripeAuthenticationError' || err?.statusCode === 401) {
    if (phase === 'connect') return invalid('apiKey', 'Stripe refused this key; check it was copied whole and is not rolled or expired');
    return new NeedsReconnect('Stripe refused the stored restricted key (rolled, expired or deleted)');
  }
  if (err?.type === 'StripePermissionError' || err?.statusCode === 403) {
    return precondition('the restricted key lacks Reporting access: in Stripe, edit the key and allow Read on "Report runs and report types" and "Files", then try again');
  }
  if (err?.type === 'StripeRateLimitError' || err?.statusCode === 429) return new ApiError('resource-exhausted', 'Stripe is rate limiting requests; try again in a minute');
  if (err?.type === 'StripeInvalidRequestError') return precondition(`Stripe refused the request: ${String(err.message ?? '').replace(/\b[rs]k_(live|test)_[A-Za-z0-9*]+/g, '[key]').slice(0, 300)}`);
  return e;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const monthOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().slice(0, 7);

export const cardprocSource: StatementSource = {
  name: 'cardproc',
  async connect(creds, env) {
    const stripe = await client(creds.apiKey, env);
    try {
      const type = await stripe.reporting.reportTypes.retrieve('balance.summary.1');
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
      const months: string[] = [];
      // Months fully covered by report data.
      for (let m = monthOf(type.data_available_start); m <= monthOf(type.data_available_end); m = addMonths(m, 1)) months.push(m);
      return { accounts: [{ providerAccountId: id, name, ...(currency && { currency }) }], monthsWithActivity: months };
    } catch (e) {
      throw stripeError(e, 'connect');
    }
  },
  async sync(creds, _account, month, env) {
    const stripe = await client(creds.apiKey, env);
    const { start, end } = monthBounds(month);
    const interval = { interval_start: Math.floor(Date.parse(start) / 1000), interval_end: Math.floor(Date.parse(end) / 1000) };
    try {
      const runs = [];
      for (const r of CARDPROC_REPORTS) runs.push(await stripe.reporting.reportRuns.create({ report_type: r.type, parameters: interval }));
      const files = [];
      for (let i = 0; i < runs.length; i++) {
        let run = runs[i];
        for (let p = 0; run.status === 'pending'; p++) {
          if (p >= POLL_MS.length) throw new Error(`Stripe report run ${run.id} still pending`);
          await sleep(POLL_MS[p]);
          run = await stripe.reporting.reportRuns.retrieve(run.id);
        }
        if (run.status !== 'succeeded' || !run.result) throw precondition(`Stripe could not build the ${CARDPROC_REPORTS[i].type} report: ${run.error ?? run.status}`);
        const url = new URL(run.result.url ?? `https://files.stripe.com/v1/files/${run.result.id}/contents`);
        const base = env.config.cardprocBaseUrl && env.config.cardprocBaseUrl !== DEFAULT_BASE ? env.config.cardprocBaseUrl : `${url.protocol}//${url.host}`;
        const res = await retryAfterFetch(`${base}${url.pathname}`, { headers: { authorization: `Bearer ${creds.apiKey}` } });
        if (res.status === 401) throw new NeedsReconnect('Stripe refused the stored restricted key (rolled, expired or deleted)');
        if (res.status === 403) throw precondition('the restricted key cannot read Files: in Stripe, edit the key and allow Read on "Files", then sync again');
        if (!res.ok) throw new Error(`Stripe files answered ${res.status}`);
        files.push({ fileName: `stripe-${month}-${CARDPROC_REPORTS[i].name}.csv`, contentType: 'text/csv', bytes: Buffer.from(await res.arrayBuffer()) });
      }
      return files;
    } catch (e) {
      throw stripeError(e, 'sync');
    }
  },
};

registerStatementSource(cardprocSource);
