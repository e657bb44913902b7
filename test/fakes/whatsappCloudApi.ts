import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the WhatsApp Cloud API's send-message endpoint:
 * POST /{version}/{phone-number-id}/messages with a bearer token and a template payload.
 * It checks the request shape as the real API does and records what it accepted.
 */
export interface FakeWhatsApp {
  baseUrl: string;
  accepted: { to: string; template: { name: string; language: { code: string }; components: unknown[] } }[];
  refused: { status: number; reason: string }[];
  /** Answer the next n requests with HTTP 500 (to exercise retries). */
  failNext(n: number): void;
  /**
   * Answer the next n requests as Meta's throughput limit does: HTTP 400, error code 130429 "Rate limit hit" (Meta's
   * "WhatsApp error codes", Throttling errors: 4, 80007, 130429, 131056 are HTTP 400; build on `code`, not the status).
   */
  throttleNext(n: number): void;
  /** Accept the next n requests and never answer them (an endpoint that hangs); `hung` counts those held. */
  hangNext(n: number): void;
  hung: number;
  close(): Promise<void>;
}

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
  });

export async function startFakeWhatsApp(opts: { token: string; phoneNumberId: string; version?: string }): Promise<FakeWhatsApp> {
  const fake: FakeWhatsApp = { baseUrl: '', accepted: [], refused: [], failNext: () => {}, throttleNext: () => {}, hangNext: () => {}, hung: 0, close: async () => {} };
  let failures = 0;
  let throttled = 0;
  fake.throttleNext = (n) => (throttled = n);
  let hangs = 0;
  fake.failNext = (n) => (failures = n);
  fake.hangNext = (n) => (hangs = n);
  const server = createServer(async (req, res) => {
    const body = await read(req);
    if (hangs > 0) {
      hangs--;
      fake.hung++;
      return; // read, never answered: the client's own time limit must end it
    }
    const refuse = (status: number, reason: string) => {
      fake.refused.push({ status, reason });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: reason, type: 'OAuthException', code: status === 401 ? 190 : 100 } }));
    };
    if (failures > 0) {
      failures--;
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'temporary failure', code: 2 } }));
      return;
    }
    if (throttled > 0) {
      throttled--;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429, error_data: { messaging_product: 'whatsapp', details: 'Cloud API message throughput has been reached.' }, fbtrace_id: 'Az8or2yhqkZfEZ' } }));
      return;
    }
    const expectedPath = `/${opts.version ?? 'v23.0'}/${opts.phoneNumberId}/messages`;
    if (req.method !== 'POST' || req.url !== expectedPath) return refuse(404, `unknown path ${req.method} ${req.url}`);
    if (req.headers.authorization !== `Bearer ${opts.token}`) return refuse(401, 'Invalid OAuth access token');
    let msg: any;
    try {
      msg = JSON.parse(body);
    } catch {
      return refuse(400, 'body is not JSON');
    }
    if (msg.messaging_product !== 'whatsapp') return refuse(400, 'messaging_product must be whatsapp');
    if (typeof msg.to !== 'string' || !/^\d{8,15}$/.test(msg.to)) return refuse(400, 'to must be a phone number');
    if (msg.type !== 'template' || typeof msg.template?.name !== 'string' || typeof msg.template?.language?.code !== 'string') {
      return refuse(400, 'template.name and template.language.code are required');
    }
    for (const c of msg.template.components ?? []) {
      if (!['body', 'header', 'button'].includes(c.type) || !Array.isArray(c.parameters)) return refuse(400, 'bad component');
      if (c.type === 'button' && (c.sub_type !== 'url' || typeof c.index !== 'string')) return refuse(400, 'bad button component');
    }
    fake.accepted.push({ to: msg.to, template: msg.template });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: msg.to, wa_id: msg.to }], messages: [{ id: `wamid.${fake.accepted.length}` }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
