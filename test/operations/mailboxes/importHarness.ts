import { createHarness, type Harness } from '../../harness.ts';
import { fakeAi, type FakeAi } from '../invoices/helpers.ts';
import { startFakeGmail, gmailEnv, type FakeGmail } from '../../fakes/gmail.ts';

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
