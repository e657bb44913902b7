import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { getSignupDoc, signupDocView, signupView } from '../../domain/signupDocs/signupDocs.ts';

export default defineOperation({
  name: 'getSignupDocFields',
  group: 'signupDocs',
  summary: "A stored form's fields as analyzed, with its download links",
  description:
    "One uploaded form (analyzeSignupDoc) with each field the AI found: its label, value, kind, page (0-based; 0 for a DOCX) and box ([ymin, xmin, ymax, xmax] on a 0–1000 scale of the page; zeros for a DOCX), the analysis status, and the form's and each filled copy's download link (null once the file is gone).",
  flags: { readOnly: true },
  input: input({ docId: id().describe('Signup document id (from analyzeSignupDoc or listSignupDocs).') }),
  output: signupDocView,
  async run({ docId }, ctx) {
    const { businessId } = ctx.caller;
    const doc = await getSignupDoc(ctx.store, businessId, docId);
    const urls = new Map<string, string | null>();
    for (const f of [doc.fileId, ...doc.filled.map((x) => x.fileId)]) urls.set(f, (await ctx.files.ref(businessId, f))?.url ?? null);
    return signupView(doc, urls);
  },
});
