import type { Services } from '../core/context.ts';
import type { DocStore } from '../ports/store.ts';
import { accountsPath, statementsPath, type AccountRecord, type StatementRecord } from './statements.ts';
import { readyStatements, uniqueNames, writeZip } from './accZip.ts';
import { sanitizeFileName } from '../core/text.ts';
import type { EmailMessage } from '../ports/outbox.ts';
import { monthPackageEmail as monthPackageMessage, type BusinessIdentity, type MailCtx } from '../emails/messages.ts';

/**
 * The month package: every ready statement of a month in one ZIP (account/month/file), and the email
 * that carries its link to the accountant. Used by statementsZip, statementsSend and (later) the
 * monthly statements automation.
 */
export interface MonthZip {
  businessId: string;
  fileId: string;
  fileName: string;
  url: string;
  size: number;
  entries: number;
  /** Names of the accounts whose statement is in, and of those missing (not synced, or failed). */
  accounts: string[];
  missing: string[];
}

export async function buildStatementsZip(s: Services, businessId: string, month: string, accountIds: string[]): Promise<MonthZip> {
  const accounts = (await s.store.query({ collection: accountsPath(businessId) }))
    .map((d) => d.data as unknown as AccountRecord)
    .filter((a) => !accountIds.length || accountIds.includes(a.id));
  const ready = await readyStatements(s, businessId, accountIds, { from: month, to: month });
  const inIds = new Set(ready.map((st) => st.accountId));
  const entries = uniqueNames(ready.flatMap((st) => st.files.map((f) => ({ dir: `${sanitizeFileName(st.accountName, st.accountId)}/${month}`, fileName: f.fileName, fileId: f.fileId }))));
  const missing = accounts.filter((a) => !inIds.has(a.id)).map((a) => a.name);
  const readme = [`Statements of ${month}: none is ready.`, missing.length ? `Accounts without a statement: ${missing.join(', ')}.` : 'No statement account is connected.', ''].join('\n');
  const { file, entries: n } = await writeZip(s, businessId, `statements-${month}.zip`, entries, readme);
  return { businessId, fileId: file.fileId, fileName: file.fileName, url: file.url, size: file.size, entries: n, accounts: [...new Set(ready.map((st) => st.accountName))], missing };
}

/** The ZIP rides along when under this size; a larger one is sent as its link only (mail servers refuse big messages). */
export const ATTACH_ZIP_UNDER_BYTES = 10 * 1024 * 1024;

/** The package's email to one recipient (in Hebrew, sizes in KB under 1 MB); the ZIP rides along when small enough. */
export function monthPackageEmail(m: MailCtx, business: BusinessIdentity, to: string, month: string, zip: MonthZip): Promise<EmailMessage> {
  const attach = zip.size < ATTACH_ZIP_UNDER_BYTES;
  return monthPackageMessage(
    m,
    business,
    to,
    { month, url: zip.url, size: zip.size, accounts: zip.accounts, missing: zip.missing, attached: attach },
    attach ? { attachments: [{ businessId: zip.businessId, fileId: zip.fileId, fileName: zip.fileName, contentType: 'application/zip' }] } : {},
  );
}

/** The statements automation's recipients, when it exists (the automations of issue 9). */
export async function systemAutomationRecipients(store: DocStore, businessId: string): Promise<string[]> {
  const doc = await store.get(`businesses/${businessId}/automations/system_statements`);
  const r = (doc?.data.config as { recipients?: unknown } | undefined)?.recipients;
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
}

/** The per-month send state on every statement of the month (statementsList shows it). */
export async function recordSend(store: DocStore, businessId: string, month: string, send: Record<string, unknown>): Promise<void> {
  const docs = (await store.query({ collection: statementsPath(businessId), where: [['month', '==', month]] })).map((d) => d.data as unknown as StatementRecord);
  if (!docs.length) return;
  const batch = store.batch();
  for (const st of docs) batch.update(statementsPath(businessId, st.id), { send });
  await batch.commit();
}
