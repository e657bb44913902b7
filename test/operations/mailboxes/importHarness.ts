import { createHarness, type Harness } from '../../harness.ts';
import { fakeAi, pdf, reading, type FakeAi } from '../invoices/helpers.ts';
import { startFakeGmail, gmailEnv, type FakeGmail, type FakeMail } from '../../fakes/gmail.ts';

export interface ImportHarness {
  h: Harness;
  fake: FakeGmail;
  ai: FakeAi;
  /** Closes the harness, then the fake Gmail. */
  close: () => Promise<void>;
}

/** The mailbox import tests' setup: a harness on the fake Gmail, with the fake AI and imports that answer at once. */
export async function startImportHarness(env: Record<string, string> = {}): Promise<ImportHarness> {
  const fake = await startFakeGmail();
  const ai = fakeAi();
  const h = await createHarness({ env: { ...gmailEnv(fake), MAILBOX_IMPORT_WAIT_MS: '0', ...env }, overrides: { ai } });
  return {
    h,
    fake,
    ai,
    close: async () => {
      await h.close();
      await fake.close();
    },
  };
}

let seq = 0;
/**
 * `n` mails in the fake Gmail with one PDF invoice each (the fake AI reads each as `<prefix>-<k>`), dated a second
 * apart after `since`; ids are `<prefix><k>`, k counting across calls so every mail of a test file is unique.
 */
export async function invoiceMails(gmail: FakeGmail, ai: FakeAi, n: number, since: number, prefix: string): Promise<FakeMail[]> {
  const out: FakeMail[] = [];
  for (let i = 0; i < n; i++) {
    const bytes = await pdf();
    const k = ++seq;
    ai.script(bytes, reading({ number: `${prefix}-${k}` }));
    out.push({
      id: `${prefix}${k}`,
      from: `Supplier ${k} <s${k}@supplier.co.il>`,
      subject: `Invoice ${k}`,
      dateMs: since + (i + 1) * 1000,
      body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'text/plain', data: Buffer.from('attached') }, { mimeType: 'application/pdf', data: bytes, filename: `inv${k}.pdf` }] },
    });
  }
  gmail.add(...out);
  return out;
}
