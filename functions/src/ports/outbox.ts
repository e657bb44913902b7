/** Outbound messages. They are written to the outbox inside the causing transaction and delivered by a task. */
export interface EmailMessage {
  channel: 'email';
  to: string;
  subject: string;
  /** The plain-text part; with `html`, the message is multipart/alternative. */
  text: string;
  html?: string;
  /** Who the message speaks for (the business): the From name becomes "<fromName> via <product>". */
  fromName?: string;
  /** Where replies go (the business's email). */
  replyTo?: string;
  /** Stored files sent along, read from the file store at delivery so the outbox record stays small. */
  attachments?: EmailAttachment[];
}

export interface EmailAttachment {
  businessId: string;
  fileId: string;
  fileName: string;
  contentType: string;
}

export interface WhatsAppMessage {
  channel: 'whatsapp';
  /** E.164 phone. */
  to: string;
  template: string;
  language: string;
  /** Body parameters of the template, in order. */
  bodyParams: string[];
  /** The dynamic suffix of the template's URL button, if it has one. */
  urlButtonParam?: string;
}

export type OutboundMessage = EmailMessage | WhatsAppMessage;

/** `delivered: false` is the provider's final refusal (the message ends `failed`); a passing failure throws and is retried. */
export type DeliveryResult = { delivered: true; providerId?: string } | { delivered: false; reason: string };

/** A delivery channel (SMTP, WhatsApp Cloud API). */
export interface Sender<M extends OutboundMessage = OutboundMessage> {
  /** False when the channel's settings are absent; the record then stays undelivered with the reason. */
  readonly configured: boolean;
  send(message: M, messageId: string): Promise<DeliveryResult>;
}
