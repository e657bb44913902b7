import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the Stripe API parts the `stripe` SDK calls for cardproc (functions/src/adapters/cardproc/cardproc.ts), as
 * strict as Stripe's published definition: github.com/stripe/openapi (openapi/spec3.json: GetReportingReportTypesReportType,
 * PostReportingReportRuns, GetReportingReportRunsReportRun, GetAccount) and docs.stripe.com/reports/report-types
 * ("About run parameters"). What it enforces:
 * - the key as Bearer or Basic user (Stripe accepts both); an unknown key is 401, a missing permission 403, in Stripe's
 *   error envelope `{ error: { type, message, code?, param? } }`;
 * - POST /v1/reporting/report_runs (form): `report_type` required and known; `parameters[interval_start]` and
 *   `parameters[interval_end]` required for these report types; a parameter the spec does not list is 400 "Received
 *   unknown parameter"; the interval as the report-run parameters describe it (docs.stripe.com/api/reporting/report_run:
 *   interval_start "between 1 second after this report's data_available_start and 1 second before interval_end",
 *   interval_end "between 1 second after interval_start and 1 second before this report's last data_available_end"),
 *   read strictly: data_available_start < interval_start < interval_end < data_available_end, else 400
 *   invalid_request_error; `parameters[timezone]` must name an IANA zone (400 otherwise), defaults to Etc/UTC and
 *   only changes how the report writes its timestamps ("Has no effect on interval_start or interval_end"); a
 *   live-only report type with a test key is 400;
 * - GET /v1/reporting/report_types/{type}: data_available_start/end per type (`dataAvailable`, or `availableByType`);
 * - a run is `pending` until polled once, then `succeeded` with result = a file; GET /v1/files/{id}/contents
 *   (files.stripe.com in production) needs the key too.
 * The 400 messages follow Stripe's style; the interval ones are not verbatim (the docs give the rule, not the text).
 * Records every request with its decoded form body.
 */
export interface FakeStripe {
  baseUrl: string;
  keys: Map<string, Set<'reporting' | 'account'>>;
  dataAvailable: { start: number; end: number };
  /** Per report type availability; falls back to `dataAvailable`. */
  availableByType: Map<string, { start: number; end: number }>;
  /** Report types Stripe runs on live-mode data only (refused for rk_test_ keys). */
  liveOnly: Set<string>;
  /** Changes the CSVs (a re-sync must bring the new ones). */
  edition: number;
  requests: { method: string; path: string; authorization: string | undefined; form: Record<string, string> }[];
  runs: Map<string, { report_type: string; interval_start: number; interval_end: number; timezone: string; polls: number }>;
  /** The next n requests answer this status (5xx: Stripe's api_error). */
  failNext(n: number, status: number): void;
  close(): Promise<void>;
}

export const STRIPE_REPORT_TYPES = ['balance.summary.1', 'balance_change_from_activity.itemized.3', 'payouts.itemized.3'];
/** Run parameters the report-types reference lists for the report types above. */
const RUN_PARAMETERS = new Set(['interval_start', 'interval_end', 'currency', 'reporting_category', 'timezone', 'payout', 'connected_account']);

/** An IANA zone name (Intl holds the IANA database). */
const isZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(tz);
  } catch {
    return false;
  }
};
/** A Unix time as wall-clock time in a zone, `YYYY-MM-DD HH:mm:ss`. */
const wall = (unix: number, tz: string) => new Intl.DateTimeFormat('sv-SE', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(unix * 1000);

export async function startFakeStripe(): Promise<FakeStripe> {
  let failing = 0;
  let failStatus = 500;
  const fake = {
    keys: new Map(),
    dataAvailable: { start: 0, end: 0 },
    availableByType: new Map(),
    liveOnly: new Set(),
    edition: 1,
    requests: [],
    runs: new Map(),
    failNext(n: number, status: number) {
      failing = n;
      failStatus = status;
    },
  } as unknown as FakeStripe;
  let n = 0;
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const raw = req.method === 'GET' ? url.searchParams : new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const form = Object.fromEntries(raw);
    fake.requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization, form });
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'request-id': `req_${++n}` });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const invalid = (message: string, extra: Record<string, string> = {}) => send(400, { error: { type: 'invalid_request_error', message, ...extra } });
    if (failing > 0) {
      failing--;
      return send(failStatus, { error: { type: 'api_error', message: 'An unknown error occurred' } });
    }
    const auth = req.headers.authorization ?? '';
    const basic = /^Basic (.+)$/.exec(auth)?.[1];
    const key = /^Bearer (.+)$/.exec(auth)?.[1] ?? (basic ? Buffer.from(basic, 'base64').toString('utf8').replace(/:$/, '') : '');
    const perms = fake.keys.get(key);
    const masked = key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}` : '****';
    if (!key) return send(401, { error: { type: 'invalid_request_error', message: 'You did not provide an API key.' } });
    if (!perms) return send(401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${masked}` } });
    const refuse = (perm: string) =>
      send(403, { error: { type: 'invalid_request_error', message: `The provided key '${key.slice(0, 12)}***' does not have the required permissions for this endpoint on account 'acct_1Fake'. Having the '${perm}' permission would allow this request to continue.` } });
    const availability = (type: string) => fake.availableByType.get(type) ?? fake.dataAvailable;
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && url.pathname === '/v1/account') {
      if (!perms.has('account')) return refuse('rak_account_read');
      return send(200, { id: 'acct_1Fake', object: 'account', default_currency: 'ils', business_profile: { name: 'Fake Shop Ltd' }, settings: { dashboard: { display_name: 'Fake Shop' } } });
    }
    if ((url.pathname.startsWith('/v1/reporting/') || url.pathname.startsWith('/v1/files/')) && !perms.has('reporting')) return refuse('rak_report_run_read');
    const live = key.startsWith('rk_live_') || key.startsWith('sk_live_');
    if (req.method === 'GET' && (m = /^\/v1\/reporting\/report_types\/([\w.]+)$/.exec(url.pathname))) {
      if (!STRIPE_REPORT_TYPES.includes(m[1])) return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such report type: '${m[1]}'` } });
      const a = availability(m[1]);
      return send(200, { id: m[1], object: 'reporting.report_type', data_available_start: a.start, data_available_end: a.end, default_columns: [], livemode: live, name: m[1], updated: a.end, version: 1 });
    }
    const runView = (id: string) => {
      const r = fake.runs.get(id)!;
      const done = r.polls > 0;
      return {
        id,
        object: 'reporting.report_run',
        created: 1,
        error: null,
        livemode: live,
        parameters: { interval_start: r.interval_start, interval_end: r.interval_end, timezone: r.timezone },
        report_type: r.report_type,
        result: done ? { id: `file_${id}`, object: 'file', purpose: 'finance_report_run', type: 'csv', filename: `${id}.csv`, size: 10, url: `https://files.stripe.com/v1/files/file_${id}/contents` } : null,
        status: done ? 'succeeded' : 'pending',
        succeeded_at: done ? 2 : null,
      };
    };
    if (req.method === 'POST' && url.pathname === '/v1/reporting/report_runs') {
      for (const k of Object.keys(form)) {
        const p = /^parameters\[(\w+)\](\[\d*\])?$/.exec(k)?.[1];
        const known = k === 'report_type' || /^expand\[\d*\]$/.test(k) || (p && (RUN_PARAMETERS.has(p) || (p === 'columns' && /\[\d*\]$/.test(k))));
        if (!known) return invalid(`Received unknown parameter: ${k}`, { param: k });
      }
      if (!form.report_type) return invalid('Missing required param: report_type.', { param: 'report_type' });
      if (!STRIPE_REPORT_TYPES.includes(form.report_type)) return invalid(`Invalid report_type: ${form.report_type}`, { param: 'report_type' });
      if (fake.liveOnly.has(form.report_type) && !live) return invalid(`Report type ${form.report_type} can only be run in live mode.`, { param: 'report_type' });
      for (const p of ['interval_start', 'interval_end']) {
        const v = form[`parameters[${p}]`];
        if (v === undefined) return invalid(`Missing required param: parameters[${p}].`, { param: `parameters[${p}]` });
        if (!/^\d+$/.test(v)) return invalid(`Invalid integer: ${v}`, { param: `parameters[${p}]` });
      }
      const start = Number(form['parameters[interval_start]']);
      const end = Number(form['parameters[interval_end]']);
      const a = availability(form.report_type);
      const timezone = form['parameters[timezone]'] ?? 'Etc/UTC';
      if (!isZone(timezone)) return invalid(`Invalid timezone: ${timezone}. Use a time zone name from the IANA Time Zone Database.`, { param: 'parameters[timezone]' });
      if (start >= end) return invalid('parameters[interval_start] must be before parameters[interval_end].', { param: 'parameters[interval_start]' });
      if (start <= a.start) return invalid(`parameters[interval_start] must be at least 1 second after the report type's data_available_start (${a.start}).`, { param: 'parameters[interval_start]' });
      if (end >= a.end) return invalid(`parameters[interval_end] must be at least 1 second before the report type's data_available_end (${a.end}).`, { param: 'parameters[interval_end]' });
      const id = `frr_${++n}`;
      fake.runs.set(id, { report_type: form.report_type, interval_start: start, interval_end: end, timezone, polls: 0 });
      return send(200, runView(id));
    }
    if (req.method === 'GET' && (m = /^\/v1\/reporting\/report_runs\/(frr_\d+)$/.exec(url.pathname))) {
      const r = fake.runs.get(m[1]);
      if (!r) return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such report run: '${m[1]}'` } });
      r.polls++;
      return send(200, runView(m[1]));
    }
    if (req.method === 'GET' && (m = /^\/v1\/files\/file_(frr_\d+)\/contents$/.exec(url.pathname))) {
      const r = fake.runs.get(m[1]);
      if (!r || r.polls === 0) return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such file: 'file_${m[1]}'` } });
      // The report's timestamps are written in the run's timezone, as Stripe writes them ("YYYY-MM-DD HH:mm:ss").
      return send(200, `report_type,interval_start,interval_end,timezone,edition\n${r.report_type},${wall(r.interval_start, r.timezone)},${wall(r.interval_end, r.timezone)},${r.timezone},edition ${fake.edition}\n`, 'text/csv');
    }
    send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}
