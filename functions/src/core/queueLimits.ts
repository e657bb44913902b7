/**
 * How much of each kind of task runs at once on Cloud Tasks (issue 20). Each task queue is its own Cloud Tasks queue
 * with its own `maxConcurrentDispatches` (index.ts), so outbox deliveries never wait behind provider calls. Cloud
 * Tasks has no per-key limit, so the queues that call providers also cap one business's share (`perBusiness`, held in
 * the store: core/tenantSlots.ts); 0 means no cap. Locally the queue enforces both itself (LOCAL_QUEUE_CONCURRENCY,
 * LOCAL_QUEUE_PER_BUSINESS). Kept free of imports: index.ts reads it at load time.
 */
export interface CloudQueueLimit {
  maxConcurrentDispatches: number;
  perBusiness: number;
}

/** Outbox deliveries: email, and WhatsApp in a queue of its own (core/outbox.ts outboxQueue). */
export const OUTBOX_QUEUE = 'outboxDeliver';
export const OUTBOX_WHATSAPP_QUEUE = 'outboxDeliverWhatsapp';

export const CLOUD_QUEUE_LIMITS: Record<string, CloudQueueLimit> = {
  // Messages: short SMTP/WhatsApp calls (20 s timeout), many at once; one business's burst is spread by the queue.
  outboxDeliver: { maxConcurrentDispatches: 50, perBusiness: 0 },
  // WhatsApp deliveries: a queue of their own, so a hanging Cloud API never takes the email slots (issue 34).
  outboxDeliverWhatsapp: { maxConcurrentDispatches: 50, perBusiness: 0 },
  // Provider statement syncs: one business at most 3 at once, so its hanging provider leaves the other 17 to the rest.
  statementSync: { maxConcurrentDispatches: 20, perBusiness: 3 },
  // Import batches: each reads 10 mails at once (Gmail's per-user quota), so at most 2 batches of one business.
  mailboxImportBatch: { maxConcurrentDispatches: 10, perBusiness: 2 },
  automationMailboxPoll: { maxConcurrentDispatches: 10, perBusiness: 2 },
  // Automation steps without provider calls (fan-out and completion): short, uncapped per business.
  automationStatementsRun: { maxConcurrentDispatches: 10, perBusiness: 0 },
  automationStatementsCheck: { maxConcurrentDispatches: 10, perBusiness: 0 },
  // Supplier invoices read by the AI on arrival: one Gemini call each, at most 2 of one business at once.
  supplierInvoiceRead: { maxConcurrentDispatches: 10, perBusiness: 2 },
};

/** A dispatch that never answers ends at the task function's timeout (index.ts). */
export const TASK_TIMEOUT_S = 540;
