import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { getSignupDoc, signupDocPath } from '../../domain/signupDocs/signupDocs.ts';

export default defineOperation({
  name: 'deleteSignupDoc',
  group: 'signupDocs',
  summary: 'Delete a form and every filled copy; their links stop working',
  description:
    'Removes the uploaded form, its analyzed fields and every filled copy made from it (fillSignupDoc), with their stored files: their download links answer 404 from then on. filesRemoved counts the original plus the copies. Copies already put in an accountant ZIP stay in that ZIP until it expires.',
  flags: { dangerous: true },
  input: input({ docId: id().describe('Signup document id (from analyzeSignupDoc or listSignupDocs).') }),
  output: z.object({ docId: z.string(), fileName: z.string(), deleted: z.literal(true), filesRemoved: z.int() }),
  async run({ docId }, ctx) {
    const { businessId } = ctx.caller;
    const doc = await ctx.store.runTransaction(async (tx) => {
      const cur = await getSignupDoc(tx, businessId, docId);
      tx.delete(signupDocPath(businessId, docId));
      return cur;
    });
    const files = [doc.fileId, ...doc.filled.map((f) => f.fileId)];
    for (const f of files) await ctx.files.remove(businessId, f);
    return { docId, fileName: doc.fileName, deleted: true as const, filesRemoved: files.length };
  },
  activity: (input, result) => ({ params: { fileName: result.fileName, copies: result.filesRemoved - 1 }, targetIds: [input.docId], summary: `deleted form ${result.fileName} and ${result.filesRemoved - 1} filled copies` }),
});
