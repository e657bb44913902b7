import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the Stripe API parts the `stripe` SDK calls for cardproc (functions/src/adapters/cardproc/cardproc.ts):
 * - GET  /v1/account
 * - GET  /v1/reporting/report_types/{type}          → { data_available_start, data_available_end, ... }
 * - POST /v1/reporting/report_runs (form: report_type, parameters[interval_start], parameters[interval_end])
 *        → a report run `pending`; GET /v1/reporting/report_runs/{id} → `succeeded` with result = a file object
 * - GET  /v1/files/{id}/contents                     → the CSV (files.stripe.com in production)
 * Keys: `keys` maps a key to its permissions ('reporting' | 'account'); an unknown key gets 401, a missing
 * permission 403, both with Stripe's error envelope. Records every request with its decoded form body.
 */
export interface FakeStripe {
  baseUrl: string;
  keys: Map<string, Set<'reporting' | 'account'>>;
  dataAvailable: { start: number; end: number };
  /** Changes the CSVs (a re-sync must bring the new ones). */
  edition: number;
  requests: { method: string; path: string; authorization: string | undefined; form: Record<string, string> }[];
  runs: Map<string, { report_type: string; interval_start: number; interval_end: number; polls: number }>;
  close(): Promise<void>;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const fake = { keys: new Map(), dataAvailable: { start: 0, end: 0 }, edition: 1, requests: [], runs: new Map() } as unknown as FakeStripe;
  let n = 0;
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    fake.requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization, form });
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'request-id': `req_${++n}` });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const perms = fake.keys.get(key);
    if (!perms) return send(401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${key.slice(0, 8)}****` } });
    const refuse = (perm: string) =>
      send(403, { error: { type: 'invalid_request_error', message: `The provided key '${key.slice(0, 12)}***' does not have the required permissions for this endpoint on account 'acct_1Fake'. Having the '${perm}' permission would allow this request to continue.` } });
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && url.pathname === '/v1/account') {
      if (!perms.has('account')) return refuse('rak_account_read');
      return send(200, { id: 'acct_1Fake', object: 'account', default_currency: 'ils', business_profile: { name: 'Fake Shop Ltd' }, settings: { dashboard: { display_name: 'Fake Shop' } } });
    }
    if ((url.pathname.startsWith('/v1/reporting/') || url.pathname.startsWith('/v1/files/')) && !perms.has('reporting')) return refuse('rak_report_run_read');
    if (req.method === 'GET' && (m = /^\/v1\/reporting\/report_types\/([\w.]+)$/.exec(url.pathname))) {
      return send(200, { id: m[1], object: 'reporting.report_type', data_available_start: fake.dataAvailable.start, data_available_end: fake.dataAvailable.end, default_columns: [], livemode: false, name: m[1], updated: fake.dataAvailable.end, version: 1 });
    }
    const runView = (id: string) => {
      const r = fake.runs.get(id)!;
      const done = r.polls > 0;
      return {
        id,
        object: 'reporting.report_run',
        created: 1,
        error: null,
        livemode: false,
        parameters: { interval_start: r.interval_start, interval_end: r.interval_end },
        report_type: r.report_type,
        result: done ? { id: `file_${id}`, object: 'file', purpose: 'finance_report_run', type: 'csv', filename: `${id}.csv`, size: 10, url: `https://files.stripe.com/v1/files/file_${id}/contents` } : null,
        status: done ? 'succeeded' : 'pending',
        succeeded_at: done ? 2 : null,
      };
    };
    if (req.method === 'POST' && url.pathname === '/v1/reporting/report_runs') {
      if (!form.report_type || !form['parameters[interval_start]'] || !form['parameters[interval_end]']) return send(400, { error: { type: 'invalid_request_error', message: 'Missing required param' } });
      const id = `frr_${++n}`;
      fake.runs.set(id, { report_type: form.report_type, interval_start: Number(form['parameters[interval_start]']), interval_end: Number(form['parameters[interval_end]']), polls: 0 });
      return send(200, runView(id));
    }
    if (req.method === 'GET' && (m = /^\/v1\/reporting\/report_runs\/(frr_\d+)$/.exec(url.pathname))) {
      const r = fake.runs.get(m[1]);
      if (!r) return send(404, { error: { type: 'invalid_request_error', message: 'No such report run' } });
      r.polls++;
      return send(200, runView(m[1]));
    }
    if (req.method === 'GET' && (m = /^\/v1\/files\/file_(frr_\d+)\/contents$/.exec(url.pathname))) {
      const r = fake.runs.get(m[1]);
      if (!r || r.polls === 0) return send(404, { error: { type: 'invalid_request_error', message: 'No such file' } });
      return send(200, `category,amount\n${r.report_type},${r.interval_start},${r.interval_end},edition ${fake.edition}\n`, 'text/csv');
    }
    send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname})` } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
