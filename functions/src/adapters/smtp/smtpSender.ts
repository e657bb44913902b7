import type { EmailMessage, Sender } from '../../ports/outbox.ts';

/** Email over SMTP with nodemailer, loaded on first send so a cold start does not pay for it. */
export function smtpSender(smtpUrl: string, from: string, messageIdDomain = 'bfo.local', timeoutMs = 20_000): Sender<EmailMessage> {
  let transport: Promise<import('nodemailer').Transporter> | undefined;
  // Bounded waits: a server that accepts the connection and then stalls must not hold a delivery forever.
  const timeouts = { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs };
  const getTransport = () =>
    (transport ??= import('nodemailer').then((m) => m.default.createTransport({ url: smtpUrl, ...timeouts } as never)));
  return {
    configured: Boolean(smtpUrl),
    async send(message, messageId) {
      const t = await getTransport();
      // A stable Message-ID per outbox record lets mail systems drop a retried duplicate.
      const info = await t.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        messageId: `<${messageId}@${messageIdDomain}>`,
      });
      if (info.rejected?.length) return { delivered: false, reason: `rejected by the SMTP server: ${info.rejected.join(', ')}` };
      return { delivered: true, providerId: info.messageId };
    },
  };
}
