import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { filledView, signupDocsPath, type SignupDocRecord } from '../../domain/signupDocs/signupDocs.ts';

export default defineOperation({
  name: 'listSignupDocs',
  group: 'signupDocs',
  summary: 'Uploaded forms, newest first, with download links',
  description: 'Every uploaded onboarding form with its download link, field count and the filled copies made from it (each with its own link).',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({
    docs: z.array(
      z.object({
        docId: z.string(),
        fileId: z.string(),
        fileName: z.string(),
        format: z.enum(['pdf', 'docx']),
        size: z.int(),
        pageCount: z.int(),
        url: z.string().nullable(),
        fieldCount: z.int(),
        analysisStatus: z.enum(['analyzed', 'failed']),
        filled: z.array(filledView),
        createdAt: z.string(),
      }),
    ),
  }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const rows = (await ctx.store.query({ collection: signupDocsPath(businessId) })).map((d) => d.data as unknown as SignupDocRecord);
    rows.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.docId.localeCompare(a.docId));
    const url = async (fileId: string) => (await ctx.files.ref(businessId, fileId))?.url ?? null;
    const docs = [];
    for (const d of rows) {
      docs.push({
        docId: d.docId,
        fileId: d.fileId,
        fileName: d.fileName,
        format: d.format,
        size: d.size,
        pageCount: d.pageCount,
        url: await url(d.fileId),
        fieldCount: d.fields.length,
        analysisStatus: d.analysisStatus,
        filled: await Promise.all(d.filled.map(async (f) => ({ fileId: f.fileId, fileName: f.fileName, url: await url(f.fileId), createdAt: f.createdAt }))),
        createdAt: d.createdAt,
      });
    }
    return { docs };
  },
});
