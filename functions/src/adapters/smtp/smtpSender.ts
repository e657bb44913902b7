import type { EmailMessage, Sender } from '../../ports/outbox.ts';

/** Email over SMTP with nodemailer, loaded on first send so a cold start does not pay for it. */
export function smtpSender(smtpUrl: string, from: string, messageIdDomain = 'bfo.local'): Sender<EmailMessage> {
  let transport: Promise<import('nodemailer').Transporter> | undefined;
  const getTransport = () =>
    (transport ??= import('nodemailer').then((m) => m.default.createTransport(smtpUrl)));
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
