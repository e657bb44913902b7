import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input, recentUnixMs } from '../../core/schema.ts';
import { newId } from '../../core/ids.ts';
import { importView, startImport, waitForImport } from '../../domain/mail/mailImport.ts';

export const importOutput = z.object({
  importId: z.string(),
  accountId: z.string(),
  since: z.number(),
  labelId: z.string().nullable(),
  status: z.enum(['running', 'done', 'partial', 'failed', 'canceled', 'stopped']).describe('partial: some mails were read, the provider kept failing on others; failed: none could be read; stopped: the AI quota ran out or the mailbox needs reconnecting.'),
  reason: z.string(),
  total: z.number(),
  seen: z.number(),
  invoices: z.number(),
  duplicates: z.number(),
  noInvoice: z.number(),
  errors: z.number(),
  retryLater: z.number().describe('Mails left in a temporary provider error: the next import of this mailbox or its automation\'s next poll tries them again.'),
  resumesAt: z.string().nullable().describe('While running but not moving (a batch waiting to retry, or its worker gone): when it goes on, at the latest.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export default defineOperation({
  name: 'mailboxImportStart',
  group: 'mailboxes',
  summary: 'Import invoices from the mails since a moment; waits up to 9 minutes',
  description:
    'Scans the mails since `since` (optionally one label) in background batches: every PDF or image attachment is read by AI, duplicates skipped, filed by the folder rules; every mail is listed by mailsList with its result. ' +
    'Waits for the import to finish (up to 9 minutes, less where the address has a shorter timeout) and answers it with its progress; it goes on if the caller leaves. For long imports call {direct_url}/mailboxImportStart. ' +
    'Starting again with the same importId returns that import and starts nothing. ' +
    'Temporary provider failures are retried within the import; mails still failing are counted in retryLater and tried again by the next import of the mailbox (or its automation\'s next poll), and the import ends partial or failed with the provider\'s error as the reason.',
  flags: { openWorld: true, idempotent: true },
  input: input({
    accountId: id().describe('The mailbox (mailboxListAccounts).'),
    since: recentUnixMs().describe('Import mails received after this moment (unix ms).'),
    labelId: z.string().trim().max(200).optional().describe('Only mails with this label (mailboxListLabels).'),
    importId: z.string().max(20).regex(/^[a-z0-9]{20}$/, 'expected 20 lowercase letters or digits').optional().describe('Your id for this import (20 lowercase letters/digits); the same id again returns the same import.'),
  }),
  output: importOutput,
  async run(input, ctx) {
    const importId = input.importId ?? newId(20, 'abcdefghijklmnopqrstuvwxyz0123456789');
    const { record } = await startImport(ctx, ctx.caller, { accountId: input.accountId, since: input.since, labelId: input.labelId ?? '', importId });
    const r = record.status === 'running' ? await waitForImport(ctx, ctx.caller.businessId, importId, ctx.config.mailboxImportWaitMs) : record;
    return importView(r, ctx);
  },
  activity: (_input, r) => ({ params: { status: r.status, seen: r.seen, total: r.total, invoices: r.invoices }, targetIds: [r.importId, r.accountId], summary: `mailbox import ${r.importId}: ${r.status}, ${r.seen}/${r.total} mails, ${r.invoices} invoices` }),
});
