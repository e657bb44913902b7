import type { Sender, WhatsAppMessage } from '../../ports/outbox.ts';

export interface WhatsAppSettings {
  baseUrl: string;
  apiVersion: string;
  token: string;
  phoneNumberId: string;
  /** Time limit of one send (connection, answer and body), ms: PROVIDER_TIMEOUT_MS unless WHATSAPP_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Meta's error codes that a later attempt may pass (its "WhatsApp error codes" page, which says to judge by `code`, not
 * the HTTP status): 1 API Unknown, 2 API Service (downtime, overload), 4 and 80007 and 130429 rate limits, 131056 pair
 * rate limit, 131000 something went wrong, 131016 service unavailable, 133004 server temporarily unavailable.
 * Throttling comes as HTTP 400, so the status alone would end a message that only had to wait.
 */
const PASSING_CODES = new Set([1, 2, 4, 80007, 130429, 131056, 131000, 131016, 133004]);

/** WhatsApp Cloud API: a template message, optionally with a URL button whose suffix is the link. */
export function whatsappSender(s: WhatsAppSettings): Sender<WhatsAppMessage> {
  return {
    configured: Boolean(s.token && s.phoneNumberId),
    async send(message) {
      const components: unknown[] = [];
      if (message.bodyParams.length) {
        components.push({ type: 'body', parameters: message.bodyParams.map((text) => ({ type: 'text', text })) });
      }
      if (message.urlButtonParam !== undefined) {
        components.push({ type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: message.urlButtonParam }] });
      }
      // One signal bounds the answer and its body: an endpoint that accepts and never answers costs one timed-out attempt.
      const signal = AbortSignal.timeout(s.timeoutMs ?? 20_000);
      const res = await fetch(`${s.baseUrl}/${s.apiVersion}/${s.phoneNumberId}/messages`, {
        method: 'POST',
        signal,
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: message.to.replace(/^\+/, ''),
          type: 'template',
          template: { name: message.template, language: { code: message.language }, components },
        }),
      });
      const body = (await res.json().catch((e) => {
        if (signal.aborted) throw e;
        return {};
      })) as { messages?: { id: string }[]; error?: { message?: string; code?: number } };
      // A 4xx refuses the message (the message ends `failed`); 5xx and 429 are worth retrying, and so are 401/403: our
      // token, which the operator can fix while the message waits.
      if (res.status === 429 || res.status === 401 || res.status === 403 || res.status >= 500 || (!res.ok && PASSING_CODES.has(Number(body.error?.code)))) {
        throw new Error(`WhatsApp Cloud API answered ${res.status}${body.error?.message ? `: ${body.error.message}` : ''}`);
      }
      if (!res.ok) return { delivered: false, reason: `WhatsApp Cloud API refused (${res.status}): ${body.error?.message ?? 'no message'}` };
      return { delivered: true, providerId: body.messages?.[0]?.id };
    },
  };
}
