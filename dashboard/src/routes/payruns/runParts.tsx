import { Badge } from '@mantine/core';
import { ApiError } from '../../api/client.ts';
import type { Messages } from '../../i18n/he.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import type { RunStatus } from './payApi.ts';

const RUN_COLOR: Record<RunStatus, string> = { open: 'yellow', paid: 'green', partly_paid: 'orange', canceled: 'dark' };

/** A run's status; `plain` as the list cards' tag (no Mantine component per row). */
export function RunStatusBadge({ status, plain }: { status: RunStatus; plain?: boolean }) {
  const { m } = useI18n();
  if (plain)
    return (
      <span className="tag" data-color={RUN_COLOR[status]} data-testid="run-status">
        {m.pay.runStatus[status]}
      </span>
    );
  return (
    <Badge color={RUN_COLOR[status]} variant="light" style={{ textTransform: 'none' }} data-testid="run-status">
      {m.pay.runStatus[status]}
    </Badge>
  );
}

/** Today in Israel as YYYY-MM-DD (the day a run is paid on when nothing is due earlier). */
export const israelToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());

/** A YYYY-MM-DD day as the UI writes dates (noon UTC is the same day in Israel). */
export const dayText = (date: (v: string) => string, day: string) => date(`${day}T12:00:00Z`);

/** A refused payment's reason in the UI's words: the codes payRunCreate names, anything else said plainly. */
export function refusalText(m: Messages, code: string): string {
  return (m.pay.refusal as Record<string, string>)[code] ?? m.pay.refusal.other;
}

/** The refusal of payRunCreate: each refused payment with its reason code (parallel lists in details.params). */
export function refusals(error: unknown): Map<string, string> | null {
  if (!(error instanceof ApiError) || !error.details) return null;
  const d = error.details as { reason: string; params?: { paymentIds?: string[]; reasons?: string[] } };
  if (d.reason !== 'runPaymentsRefused' || !d.params?.paymentIds) return null;
  return new Map(d.params.paymentIds.map((id, i) => [id, d.params!.reasons?.[i] ?? 'other']));
}
