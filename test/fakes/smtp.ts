import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** What the server answers to one RCPT TO instead of 250: a reply code (RFC 5321 §4.2: 4xx transient, 5xx permanent) and its text. */
export type RcptRefusal = { code: number; message: string } | null;

/**
 * A real SMTP server on loopback that keeps every message it accepts. `port` reopens a server on a port used before
 * (an outage ends); `refuseRcpt` answers chosen recipients with an SMTP error reply, as a real server does.
 */
export async function startSmtp(opts: { port?: number; refuseRcpt?: (address: string) => RcptRefusal } = {}): Promise<{ url: string; mails: ReceivedMail[]; waitFor(n: number, ms?: number): Promise<ReceivedMail[]>; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = opts.refuseRcpt?.(address.address) ?? null;
      if (!refusal) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(n, ms = 10_000) {
      const until = Date.now() + ms;
      while (mails.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      return mails;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Quoted-printable to UTF-8 text: soft breaks undone, `=XX` bytes decoded as UTF-8. */
const fromQuotedPrintable = (s: string) =>
  Buffer.from(s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');

/**
 * The raw message with its text parts decoded (base64 or quoted-printable, as UTF-8), for searching
 * links and words; `parseMail` gives the structured message.
 */
export function mailText(raw: string): string {
  const boundaries = [...raw.matchAll(/boundary="?([^";\r\n]+)"?/gi)].map((m) => m[1]);
  const parts = boundaries.reduce<string[]>((chunks, b) => chunks.flatMap((c) => c.split(`--${b}`)), [raw]);
  const decoded: string[] = [];
  for (const part of parts) {
    const split = part.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const head = part.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
    if (!/^content-type:\s*text\//im.test(head)) continue;
    const body = part.slice(split).trim();
    const encoding = /^content-transfer-encoding:\s*([\w-]+)/im.exec(head)?.[1].toLowerCase();
    decoded.push(encoding === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') : encoding === 'quoted-printable' ? fromQuotedPrintable(body) : body);
  }
  return [fromQuotedPrintable(raw), ...decoded].join('\n');
}

/** The message as a mail client reads it (mailparser): decoded headers, text and HTML parts, attachments. */
export async function parseMail(raw: string) {
  const { simpleParser } = await import('mailparser');
  return simpleParser(raw);
}

/** The attachments of a raw MIME message (base64 parts with Content-Disposition: attachment, at any depth). */
export function mailAttachments(raw: string): { fileName: string; contentType: string; bytes: Buffer }[] {
  const boundaries = [...raw.matchAll(/boundary="?([^";\r\n]+)"?/gi)].map((m) => m[1]);
  const parts = boundaries.reduce<string[]>((chunks, b) => chunks.flatMap((c) => c.split(`--${b}`)), [raw]);
  const out: { fileName: string; contentType: string; bytes: Buffer }[] = [];
  for (const part of parts) {
    const split = part.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const head = part.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
    if (!/^content-disposition:\s*attachment/im.test(head)) continue;
    const fileName = /filename\*?="?([^";\r\n]+)"?/i.exec(head)?.[1] ?? '';
    const contentType = /^content-type:\s*([^;\r\n]+)/im.exec(head)?.[1].trim() ?? '';
    const body = part.slice(split).replace(/\s+/g, '');
    out.push({ fileName, contentType, bytes: Buffer.from(/^content-transfer-encoding:\s*base64/im.test(head) ? body : '', 'base64') });
  }
  return out;
}
