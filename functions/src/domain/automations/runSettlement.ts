import type { Services } from '../../core/context.ts';
import { iso } from '../../core/clock.ts';
import { automationRunStatementPath, statementId } from '../statements/statementIds.ts';

/**
 * The statements run's fan-in, on its own so that the statements rules can report a settled sync without importing
 * the automations (which import the statements): the runs' path, the completion queue, and accountSettled.
 */
export const STATEMENTS_CHECK_QUEUE = 'automationStatementsCheck';
export const runsPath = (b: string, runId = '') => `businesses/${b}/automationRuns${runId ? '/' + runId : ''}`;

/** The part of a run record the fan-in reads (automations.ts's RunRecord). */
interface SettlingRun {
  status: string;
  month: string | null;
  fannedOut: boolean;
  accounts: { accountId: string; status: 'pending' | 'ready' | 'failed'; reason: string | null }[];
}

/**
 * Fan-in: one account of the run settled (`change`), or the fan-out ended (`fannedOut`). One transaction on the run
 * record, so of the syncs settling at once exactly one sees the last account settle: it flips `completing` and queues
 * the completion step now. Idempotent: told again (a retried sync task), it only queues the same task id again.
 */
export async function accountSettled(
  s: Services,
  businessId: string,
  runId: string,
  accountId: string | null,
  month: string,
  change: { status: 'ready' | 'failed'; reason: string | null } | null,
  mark: { fannedOut?: boolean } = {},
): Promise<void> {
  const path = runsPath(businessId, runId);
  const at = iso(s.clock.now());
  const complete = await s.store.runTransaction(async (tx) => {
    const run = (await tx.get(path))?.data as unknown as SettlingRun | undefined;
    if (!run || run.status !== 'running' || run.month !== month) return false;
    let accounts = run.accounts;
    if (accountId && change) {
      if (!accounts.some((a) => a.accountId === accountId)) return false;
      accounts = accounts.map((a) => (a.accountId === accountId ? { ...a, status: change.status, reason: change.reason } : a));
      tx.set(automationRunStatementPath(businessId, runId, statementId(accountId, month)), { accountId, month, status: change.status, reason: change.reason, settledAt: at });
    }
    const fannedOut = run.fannedOut || Boolean(mark.fannedOut);
    const pending = accounts.filter((a) => a.status === 'pending').length;
    const last = fannedOut && pending === 0;
    tx.update(path, { accounts, fannedOut, ...(last && { completing: true }), summary: `pulling ${month}: ${accounts.length - pending} of ${accounts.length} account(s) settled` });
    return last;
  });
  if (complete) await s.tasks.enqueue(STATEMENTS_CHECK_QUEUE, { businessId, runId, final: true }, { id: `automationCheck-${businessId}-${runId}-final` });
}
