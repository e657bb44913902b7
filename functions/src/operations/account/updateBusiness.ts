import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { base64, input } from '../../core/schema.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { businessPath, profileOf, profileSchema, profileShape } from '../../domain/business.ts';
import { checkDocImage, DOC_IMAGE_MAX_BYTES, DOC_IMAGES } from '../../domain/signupDocs/signupDocs.ts';

export default defineOperation({
  name: 'updateBusiness',
  group: 'account',
  summary: 'Update the business profile; only the fields sent change.',
  flags: { idempotent: true },
  description:
    'Only the fields sent change. docSignaturePng and docStampPng (base64 PNG, at most 1 MB; "" removes it) are the signature and stamp ' +
    'images generateSignupDoc places on forms; they are stored as files, and getBusiness shows only whether each is set.',
  input: input({
    ...profileShape,
    docSignaturePng: base64(DOC_IMAGE_MAX_BYTES).describe('Signature image for forms: base64 PNG without a data: prefix, at most 1 MB; "" removes it.'),
    docStampPng: base64(DOC_IMAGE_MAX_BYTES).describe('Business stamp image for forms: base64 PNG without a data: prefix, at most 1 MB; "" removes it.'),
  }).partial(),
  output: profileSchema.extend({ docSignatureSet: z.boolean(), docStampSet: z.boolean() }),
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const path = businessPath(businessId);
    const { docSignaturePng, docStampPng, ...fields } = input;
    const days = fields.reminderDays;
    if (days?.some((d, i) => i > 0 && d <= days[i - 1]!)) throw invalid('reminderDays', `must be distinct days in ascending order, e.g. [3, 7]; got [${days.join(', ')}]`, { reason: 'reminderDaysOrder' });
    // Images are checked before anything changes, and stored as files before the profile points at them.
    const images = { docSignaturePng, docStampPng };
    const decoded = Object.entries(images).filter(([, v]) => v !== undefined).map(([k, v]) => ({ key: k as keyof typeof DOC_IMAGES, png: v ? checkDocImage(k, v) : null }));
    for (const d of decoded) if (d.png) await checkDocImage.decodable(d.key, d.png);
    const saved: { key: keyof typeof DOC_IMAGES; fileId: string | null }[] = [];
    for (const d of decoded) {
      const ref = d.png ? await ctx.files.save(businessId, { fileName: `${DOC_IMAGES[d.key]}.png`, contentType: 'image/png', bytes: d.png }) : null;
      saved.push({ key: d.key, fileId: ref?.fileId ?? null });
    }
    let replaced: string[] = [];
    try {
      const result = await ctx.store.runTransaction(async (tx) => {
        const doc = await tx.get(path);
        if (!doc) throw notFound('business', 'business');
        const changes: Record<string, unknown> = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
        replaced = [];
        for (const s of saved) {
          const field = `${DOC_IMAGES[s.key]}FileId`;
          if (doc.data[field]) replaced.push(doc.data[field] as string);
          changes[field] = s.fileId;
        }
        tx.update(path, { ...changes, updatedAt: new Date(ctx.clock.now()).toISOString() });
        const next = { ...doc.data, ...changes };
        return { ...profileOf(next), docSignatureSet: Boolean(next.docSignatureFileId), docStampSet: Boolean(next.docStampFileId) };
      });
      for (const f of replaced) await ctx.files.remove(businessId, f);
      return result;
    } catch (e) {
      for (const s of saved) if (s.fileId) await ctx.files.remove(businessId, s.fileId).catch(() => {});
      throw e;
    }
  },
  // Image fields are named, never their bytes.
  activity: (fields) => ({ params: { count: Object.keys(fields).length }, targetIds: [], summary: `updated ${Object.keys(fields).join(', ') || 'nothing'}` }),
});
