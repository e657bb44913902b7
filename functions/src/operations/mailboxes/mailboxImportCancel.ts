import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { z } from 'zod';
import { cancelImport, importView } from '../../domain/mail/mailImport.ts';
import { importOutput } from './mailboxImportStart.ts';

export default defineOperation({
  name: 'mailboxImportCancel',
  group: 'mailboxes',
  summary: 'Stop a running import before its next mail',
  description: 'Flags the import canceled; each batch checks before its next mail, so what was imported stays and the rest is not looked at. A finished import is answered as it is.',
  flags: { idempotent: true },
  input: input({ importId: z.string().max(20).regex(/^[a-z0-9]{20}$/, 'expected 20 lowercase letters or digits').describe('The import (mailboxImportStart).') }),
  output: importOutput,
  async run({ importId }, ctx) {
    return importView(await cancelImport(ctx, ctx.caller.businessId, importId), ctx);
  },
  activity: (input) => ({ targetIds: [input.importId], summary: `canceled mailbox import ${input.importId}` }),
});
