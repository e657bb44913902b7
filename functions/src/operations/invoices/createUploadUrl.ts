import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { fileName, input } from '../../core/schema.ts';
import { createUpload, UPLOAD_KEEP_MS, UPLOAD_URL_TTL_MS } from '../../core/uploads.ts';
import { UPLOAD_MAX_BYTES, UPLOAD_TYPES } from '../../domain/invoices/invoiceDocs.ts';
import { SIGNUP_MAX_BYTES } from '../../domain/signupDocs/signupDocs.ts';
import { DOCX_MIME } from '../../domain/signupDocs/signupDocx.ts';
import { PROOF_MAX_BYTES, PROOF_TYPES } from '../payments/markPaid.ts';

/** What each purpose takes: the limits of the operation field that will read the upload. */
const PURPOSES = {
  invoice: { maxBytes: UPLOAD_MAX_BYTES, types: UPLOAD_TYPES, usedBy: 'uploadInvoiceDoc fileId' },
  proof: { maxBytes: PROOF_MAX_BYTES, types: PROOF_TYPES, usedBy: "markPaid's proof.fileId" },
  signupDoc: { maxBytes: SIGNUP_MAX_BYTES, types: ['application/pdf', DOCX_MIME], usedBy: 'analyzeSignupDoc fileId' },
} as const;

export default defineOperation({
  name: 'createUploadUrl',
  group: 'invoices',
  summary: 'A one-time URL to PUT a file to, then pass its fileId instead of base64',
  description:
    `Returns uploadUrl and fileId. PUT the file's bytes to uploadUrl (one request, within ${UPLOAD_URL_TTL_MS / 60_000} minutes, no API key: the URL is the key); ` +
    'the PUT checks the size and the type for the purpose and answers {ok, result: {fileId, size, contentType}}. ' +
    `Then pass fileId instead of dataBase64 to the operation of the purpose (invoice: uploadInvoiceDoc; proof: markPaid's proof; signupDoc: analyzeSignupDoc) within ${UPLOAD_KEEP_MS / 3_600_000} hours; ` +
    'the upload is used up by that call. Limits: invoice and proof 5 MB (PDF, JPEG, PNG; a proof also WebP, HEIC), signupDoc 10 MB (PDF or DOCX).',
  flags: {},
  input: input({
    purpose: z.enum(['invoice', 'proof', 'signupDoc']).describe('What the file is: invoice (uploadInvoiceDoc), proof (markPaid), signupDoc (analyzeSignupDoc).'),
    fileName: fileName().describe('File name to keep; path parts and control characters are removed.'),
  }),
  output: z.object({
    fileId: z.string().describe('Pass it as fileId once the PUT succeeded.'),
    uploadUrl: z.string().describe('PUT the bytes here, once, before expiresAt; no Authorization header needed.'),
    method: z.literal('PUT'),
    expiresAt: z.string().describe('ISO time after which the URL takes no PUT.'),
    maxBytes: z.int().describe('Largest file the PUT accepts.'),
    contentTypes: z.array(z.string()).describe('Types the PUT accepts (checked from the bytes).'),
  }),
  async run({ purpose, fileName: name }, ctx) {
    const spec = PURPOSES[purpose];
    const made = await createUpload(ctx, { purpose, fileName: name, maxBytes: spec.maxBytes, types: spec.types });
    return { ...made, method: 'PUT' as const, maxBytes: spec.maxBytes, contentTypes: [...spec.types] };
  },
  activity: (input, result) => ({ params: { purpose: input.purpose, fileName: input.fileName }, targetIds: [result.fileId], summary: `made an upload URL for ${input.purpose} ${input.fileName}` }),
});
