import type { Readable } from 'node:stream';
import type { EmailMessage, Sender } from '../../ports/outbox.ts';
import { mailbox } from '../../config.ts';

/**
 * A 5xx the server gave to the envelope (MAIL FROM, RCPT TO) or the message (DATA) is final (RFC 5321 §4.2.1): the
 * address does not exist, the message is refused. 4xx, a refused connection, a timeout and a 5xx to AUTH (our own
 * credentials, fixed by the operator) are worth retrying.
 */
function permanent(e: unknown): boolean {
  const err = e as { responseCode?: number; command?: string; code?: string };
  if (typeof err?.responseCode !== 'number' || err.responseCode < 500 || err.responseCode > 599) return false;
  return err.code === 'EENVELOPE' || err.code === 'EMESSAGE' || /^(MAIL FROM|RCPT TO|DATA)/i.test(err.command ?? '');
}

/** Opens a stored file for an attachment; null when it is gone. */
export type AttachmentReader = (businessId: string, fileId: string) => Promise<Readable | null>;

/** Email over SMTP with nodemailer, loaded on first send so a cold start does not pay for it. */
/**
 * From is always the configured sender's address (so SPF/DKIM hold), named for the business it speaks for:
 * `"<business> via <product>" <address>`; replies go to the business.
 */
export function smtpSender(smtpUrl: string, from: string, messageIdDomain = 'bfo.local', timeoutMs = 20_000, readAttachment?: AttachmentReader, productName = ''): Sender<EmailMessage> {
  const sender = mailbox(from);
  const product = productName || sender.name;
  let transport: Promise<import('nodemailer').Transporter> | undefined;
  // Bounded waits: a server that accepts the connection and then stalls must not hold a delivery forever.
  const timeouts = { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs };
  const getTransport = () =>
    (transport ??= import('nodemailer').then((m) => m.default.createTransport({ url: smtpUrl, ...timeouts } as never)));
  return {
    configured: Boolean(smtpUrl),
    async send(message, messageId) {
      const t = await getTransport();
      // Streamed from the file store; a file deleted since the message was written is left out (the text keeps its link).
      const attachments = [];
      for (const a of message.attachments ?? []) {
        const content = readAttachment ? await readAttachment(a.businessId, a.fileId) : null;
        if (content) attachments.push({ filename: a.fileName, contentType: a.contentType, content });
      }
      // A stable Message-ID per outbox record lets mail systems drop a retried duplicate.
      let info;
      try {
        info = await t.sendMail({
          from: message.fromName ? { name: `${message.fromName} via ${product}`, address: sender.address } : from,
          ...(message.replyTo ? { replyTo: message.replyTo } : {}),
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          ...(attachments.length ? { attachments } : {}),
          messageId: `<${messageId}@${messageIdDomain}>`,
        });
      } catch (e) {
        // A refusal is the answer (the message ends `failed`); anything else throws and is retried.
        if (permanent(e)) return { delivered: false, reason: `refused by the SMTP server: ${(e as Error).message}` };
        throw e;
      }
      if (info.rejected?.length) return { delivered: false, reason: `rejected by the SMTP server: ${info.rejected.join(', ')}` };
      return { delivered: true, providerId: info.messageId };
    },
  };
}
