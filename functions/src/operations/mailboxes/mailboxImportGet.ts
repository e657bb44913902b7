import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { importView, readImport } from '../../domain/mail/mailImport.ts';
import { importOutput } from './mailboxImportStart.ts';

export default defineOperation({
  name: 'mailboxImportGet',
  group: 'mailboxes',
  summary: "An import's progress now, never waiting",
  description: 'For a progress bar to poll; each mail\'s result is in mailsList.',
  flags: { readOnly: true, idempotent: true },
  input: input({ importId: z.string().max(20).regex(/^[a-z0-9]{20}$/, 'expected 20 lowercase letters or digits').describe('The import (mailboxImportStart).') }),
  output: importOutput,
  async run({ importId }, ctx) {
    const r = await readImport(ctx, ctx.caller.businessId, importId);
    if (!r) throw notFound(`importId: import ${importId}`, 'import');
    return importView(r, ctx);
  },
});
