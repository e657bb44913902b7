import { Badge, Loader } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import type { Output } from '../../api/client.ts';
import { useApi } from '../../ui/api.ts';

/** The five statement sources, in the order the screen shows them. */
export const SOURCES = ['cardproc', 'usbank', 'fxwallet', 'gateway', 'market'] as const;
export type Source = (typeof SOURCES)[number];
export type StatementRow = Output<'statementsList'>['statements'][number];
export type AccountRow = Output<'cardprocListAccounts'>['accounts'][number];

/**
 * Every statement account of the five sources (five reads, cached apart), with Upwork's configured flag.
 * `enabled: false` reads nothing (a screen that needs the accounts only while a form is open).
 */
export function useAccounts({ enabled = true } = {}) {
  const q = {
    cardproc: useApi('cardprocListAccounts', {}, { enabled }),
    usbank: useApi('usbankListAccounts', {}, { enabled }),
    fxwallet: useApi('fxwalletListAccounts', {}, { enabled }),
    gateway: useApi('gatewayListAccounts', {}, { enabled }),
    market: useApi('marketListAccounts', {}, { enabled }),
  };
  const all = Object.values(q);
  return {
    isPending: all.some((x) => x.isPending),
    error: all.find((x) => x.isError)?.error ?? null,
    refetch: () => all.forEach((x) => void x.refetch()),
    accounts: SOURCES.flatMap((s) => (q[s].data?.accounts ?? []) as AccountRow[]),
    marketConfigured: q.market.data?.configured ?? false,
  };
}

/** Today's date in Israel, as calendar numbers (month 1–12): the business's day, whatever the browser's zone. */
export function israelToday(now = new Date()): { y: number; m: number; d: number } {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Jerusalem', year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const n = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return { y: n('year'), m: n('month'), d: n('day') };
}

/** A calendar date as YYYY-MM-DD; months and days out of range roll over (day 0 is the month before's last). */
export const calendarDay = (y: number, month: number, day: number) => new Date(Date.UTC(y, month - 1, day)).toISOString().slice(0, 10);

/** The month now in Israel time, YYYY-MM (the API's months are Israel's). */
export function currentMonth(now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Jerusalem', year: 'numeric', month: '2-digit' }).formatToParts(now);
  return `${parts.find((p) => p.type === 'year')!.value}-${parts.find((p) => p.type === 'month')!.value}`;
}

export function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 + n, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The last `count` closed months, newest first. */
export const closedMonths = (count: number, now = new Date()) => Array.from({ length: count }, (_, i) => addMonths(currentMonth(now), -(i + 1)));

/** "March 2026" / "מרץ 2026". */
export function useMonthLabel() {
  const { locale } = useI18n();
  const f = new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  return (month: string) => {
    const [y, m] = month.split('-').map(Number);
    return f.format(Date.UTC(y, m - 1, 1));
  };
}

const STATE_COLOR = { ready: 'green', pending: 'yellow', failed: 'red', none: 'gray', sending: 'yellow', sent: 'green', connected: 'green', needs_reconnect: 'red' } as const;

/** A state as a coloured badge; a pending one spins. */
export function StateBadge({ state }: { state: keyof typeof STATE_COLOR }) {
  const { m } = useI18n();
  return (
    <Badge color={STATE_COLOR[state]} variant="light" style={{ textTransform: 'none' }} leftSection={state === 'pending' || state === 'sending' ? <Loader size={10} color="yellow.9" aria-hidden /> : undefined} data-state={state}>
      {m.statements.state[state]}
    </Badge>
  );
}
