import type { Messages } from '../i18n/he.ts';

type Kind = Exclude<keyof Messages['serverText'], 'channels' | 'bank' | 'bit'>;

/**
 * What kind of trouble a server-written line reports: an outbox delivery error (core/outbox.ts, the SMTP and
 * WhatsApp senders) or a provider's refusal (adapters/providerHttp.ts). Those are English for scripts and logs;
 * the dashboard says them in the user's language by kind.
 */
export function serverTextKind(text: string): { kind: Kind; channel?: 'email' | 'whatsapp' } {
  const configured = /^(email|whatsapp) channel is not configured/i.exec(text);
  if (configured) return { kind: 'notConfigured', channel: configured[1].toLowerCase() as 'email' | 'whatsapp' };
  if (/SMTP server/i.test(text)) return { kind: 'mailRefused' };
  if (/WhatsApp Cloud API refused/i.test(text)) return { kind: 'whatsappRefused' };
  if (/timed? ?out|timeout|ETIMEDOUT/i.test(text)) return { kind: 'timeout' };
  if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|could not connect/i.test(text)) return { kind: 'unreachable' };
  if (/reconnect|revoked|expired|invalid_grant/i.test(text)) return { kind: 'reconnect' };
  if (/refused|\(HTTP \d{3}\)/i.test(text)) return { kind: 'providerRefused' };
  return { kind: 'other' };
}

/** The line in the chosen language: Hebrew by its kind; English keeps the server's own, more precise, words. */
export function serverText(text: string, m: Messages, lang: 'he' | 'en'): string {
  if (lang === 'en') return text;
  const { kind, channel } = serverTextKind(text);
  return m.serverText[kind].replace('{channel}', channel ? m.serverText.channels[channel] : '');
}

/**
 * A masked payout as the server writes it ("bank 12-345 ••••901", "bit ••••567"), its method in the chosen
 * language and its numbers isolated left to right (U+2066…U+2069), so "••••567" keeps its order after a Hebrew word.
 */
export function payoutText(text: string, m: Messages): string {
  const found = /^(bank|bit) (.*)$/.exec(text);
  return found ? `${m.serverText[found[1] as 'bank' | 'bit']} \u2066${found[2]}\u2069` : text;
}
