import type { Services } from '../../core/context.ts';
import type { DocStore } from '../../ports/store.ts';
import { accountsPath, statementsPath, type AccountRecord, type SendState, type StatementRecord } from '../statements/statements.ts';
import { entryPart, readyStatements, uniqueNames, writeZip, zipReadme } from './accZip.ts';
import type { EmailMessage } from '../../ports/outbox.ts';
import type { OutboxRecord } from '../../core/outbox.ts';
import { accZipEmail as accZipMessage, monthPackageEmail as monthPackageMessage, type BusinessIdentity, type MailCtx, type MonthPackageFacts } from '../../emails/messages.ts';

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
  /** When the link stops working and the ZIP is deleted (ZIP_LIFETIME_MS after it was made). */
  expiresAt: string;
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
  const entries = uniqueNames(ready.flatMap((st) => st.files.map((f) => ({ dir: `${entryPart(st.accountName, st.accountId)}/${month}`, fileName: f.fileName, fileId: f.fileId }))));
  const missing = accounts.filter((a) => !inIds.has(a.id)).map((a) => a.name);
  const readme = zipReadme({
    title: { he: `דפי החשבון של ${month}`, en: `Statements of ${month}` },
    range: { from: month, to: month },
    files: entries.length,
    about: {
      he: ['דפי החשבון של החודש כפי שהתקבלו מכל חשבון, בשמם המקורי, בתיקייה לפי חשבון וחודש. אין כאן חשבוניות. הקובץ index.csv מפרט כל קובץ ואת התיקייה שלו.'],
      en: ["The month's statements as each account's source gave them, under their own names, in account and month folders. There are no invoices here. index.csv lists every file and its folder."],
    },
    notes: missing.length
      ? { he: [`חשבונות בלי דף חשבון: ${missing.join(', ')}.`], en: [`Accounts without a statement: ${missing.join(', ')}.`] }
      : accounts.length
        ? undefined
        : { he: ['לא מחובר אף חשבון.'], en: ['No statement account is connected.'] },
  });
  const { file, entries: n } = await writeZip(s, businessId, `statements-${month}.zip`, entries, readme);
  return { businessId, fileId: file.fileId, fileName: file.fileName, url: file.url, expiresAt: file.expiresAt!, size: file.size, entries: n, accounts: [...new Set(ready.map((st) => st.accountName))], missing };
}

/** The ZIP rides along when under this size; a larger one is sent as its link only (mail servers refuse big messages). */
export const ATTACH_ZIP_UNDER_BYTES = 10 * 1024 * 1024;

/**
 * The package's email to one recipient (in Hebrew, sizes in KB under 1 MB, until when the link works); the ZIP rides along when small enough.
 * `accountant`: the accountant's ZIP of the month, linked only (the statements automation with includeAccountantZip).
 */
export function monthPackageEmail(
  m: MailCtx,
  business: BusinessIdentity,
  to: string,
  month: string,
  zip: MonthZip,
  accountant: MonthPackageFacts['accountant'] = null,
): Promise<EmailMessage> {
  const attach = zip.size < ATTACH_ZIP_UNDER_BYTES;
  return monthPackageMessage(
    m,
    business,
    to,
    { month, url: zip.url, size: zip.size, expiresAt: zip.expiresAt, accounts: zip.accounts, missing: zip.missing, attached: attach, accountant },
    attach ? { attachments: [{ businessId: zip.businessId, fileId: zip.fileId, fileName: zip.fileName, contentType: 'application/zip' }] } : {},
  );
}

/** The accountant's package (accZipSend) to one recipient: its capability link, and the ZIP itself under the same size rule as the month package. */
export function accPackageEmail(
  m: MailCtx,
  business: BusinessIdentity,
  to: string,
  range: { from: string; to: string },
  zip: { businessId: string; fileId: string; fileName: string; url: string; size: number; entries: number; missing: number; expiresAt?: string },
): Promise<EmailMessage> {
  const attached = zip.size < ATTACH_ZIP_UNDER_BYTES;
  return accZipMessage(
    m,
    business,
    to,
    { ...range, url: zip.url, size: zip.size, entries: zip.entries, missing: zip.missing, expiresAt: zip.expiresAt ?? null, attached },
    attached ? { attachments: [{ businessId: zip.businessId, fileId: zip.fileId, fileName: zip.fileName, contentType: 'application/zip' }] } : {},
  );
}

/** The statements automation's recipients, when it exists (the automations of issue 9). */
export async function systemAutomationRecipients(store: DocStore, businessId: string): Promise<string[]> {
  const doc = await store.get(`businesses/${businessId}/automations/system_statements`);
  const r = (doc?.data.config as { recipients?: unknown } | undefined)?.recipients;
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
}

/** The `ref` statementsSend gives the package's messages (the automation's is its run id). */
export const sendRef = (month: string) => `statements_${month}`;

/** The per-month send state on every statement of the month (statementsList shows it): `sending` until the outbox settles it. */
export async function recordSend(
  store: DocStore,
  businessId: string,
  month: string,
  send: Omit<SendState, 'status' | 'reason' | 'outcomes'>,
): Promise<void> {
  const docs = (await store.query({ collection: statementsPath(businessId), where: [['month', '==', month]] })).map((d) => d.data as unknown as StatementRecord);
  if (!docs.length) return;
  const state: SendState = { ...send, status: 'sending', reason: null, outcomes: {} };
  const batch = store.batch();
  for (const st of docs) batch.update(statementsPath(businessId, st.id), { send: { ...state } });
  await batch.commit();
}

type Outcome = SendState['outcomes'][string];

/** The send after one more message settled: one failed or undelivered message fails it, naming the recipient and the reason. */
export function settleSend<T extends { messageIds: string[]; outcomes?: Record<string, Outcome> }>(
  send: T,
  message: { id: string; to: string },
  status: Outcome['status'],
  reason: string | null,
): T & Pick<SendState, 'status' | 'reason' | 'outcomes'> {
  const outcomes = { ...send.outcomes, [message.id]: { to: message.to, status, reason: status === 'delivered' ? null : (reason || status).slice(0, 300) } };
  const bad = Object.values(outcomes).filter((o) => o.status !== 'delivered');
  const settled = send.messageIds.every((id) => id in outcomes);
  return {
    ...send,
    outcomes,
    status: bad.length ? 'failed' : settled ? 'sent' : 'sending',
    reason: bad.length ? `not delivered to ${bad.map((o) => `${o.to} (${o.reason})`).join('; ')}`.slice(0, 1000) : null,
  };
}

/**
 * A package message reached a final outbox status: recorded on the month's send (only on the send that message
 * belongs to, never on a later one), and on the automation run that mailed it.
 */
export async function settlePackageMessage(store: DocStore, r: OutboxRecord, status: Outcome['status'], reason: string | null): Promise<void> {
  const message = { id: r.id, to: r.to };
  let month = r.ref?.startsWith('statements_') ? r.ref.slice('statements_'.length) : null;
  if (r.reason === 'automationStatements' && r.ref && !r.ref.includes('/')) {
    const runPath = `businesses/${r.businessId}/automationRuns/${r.ref}`;
    month = await store.runTransaction(async (tx) => {
      const run = (await tx.get(runPath))?.data as { month?: string; mailed?: { messageIds: string[] } | null } | undefined;
      if (run?.mailed?.messageIds?.includes(r.id)) tx.update(runPath, { mailed: { ...settleSend(run.mailed, message, status, reason) } });
      return run?.month ?? null;
    });
  }
  if (!month || !/^\d{4}-\d{2}$/.test(month)) return;
  await store.runTransaction(async (tx) => {
    const docs = await tx.query({ collection: statementsPath(r.businessId), where: [['month', '==', month]] });
    for (const d of docs) {
      const send = (d.data as unknown as StatementRecord).send;
      if (send?.messageIds?.includes(r.id)) tx.update(d.path, { send: { ...settleSend(send, message, status, reason) } });
    }
  });
}
