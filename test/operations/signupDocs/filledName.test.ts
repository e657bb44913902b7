import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeGemini, type FakeGemini } from '../../fakes/gemini.ts';
import { PDF_FIELDS, hebrewFormPdf } from './forms.ts';

// Issue 34 B5: a filled form's file name carries the day in Israel. At 00:30 on April 1 in Israel it is still March 31
// in UTC; the clock is the test's.

let h: Harness;
let gemini: FakeGemini;
let pdf: Buffer;

before(async () => {
  gemini = await startFakeGemini({ apiKey: 'test-gemini-key', model: 'gemini-2.5-flash' });
  h = await createHarness({
    env: { GEMINI_API_KEY: 'test-gemini-key', GEMINI_BASE_URL: gemini.baseUrl },
    overrides: { clock: { now: () => Date.parse('2026-03-31T21:30:00Z') } },
  });
  await h.call('updateBusiness', { businessName: 'אקמה בע"מ', companyId: '514512345' });
  pdf = await hebrewFormPdf();
  const fields = PDF_FIELDS.map((f) => ({ label: f.label, value: f.label === 'שם העסק' ? 'אקמה בע"מ' : '', kind: f.kind, page: f.page, box: f.box }));
  gemini.answer((r) => Boolean(r.inline[0]?.bytes.equals(pdf)), { text: JSON.stringify({ fields }) });
});
after(async () => {
  await h.close();
  await gemini.close();
});

test('a form filled at 00:30 on April 1 in Israel is named with April 1', async () => {
  const doc = await h.call('analyzeSignupDoc', { fileName: 'טופס ספק.pdf', mimeType: 'application/pdf', dataBase64: pdf.toString('base64') });
  const out = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: false, withStamp: false, withInitials: false });
  assert.equal(out.fileName, 'טופס ספק - filled 2026-04-01.pdf');
});
