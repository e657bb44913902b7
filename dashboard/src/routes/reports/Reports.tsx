import { Link, useSearchParams } from 'react-router';
import { Alert, Anchor, Button, Card, Group, SegmentedControl, SimpleGrid, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { categoryName } from '../../ui/names.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, Money, PageTitle } from '../../ui/common.tsx';
import type { Output } from '../../api/client.ts';
import { calendarDay, israelToday } from '../statements/statementsShared.tsx';

type Summary = Output<'spendSummary'>;
type Row = Summary['rows'][number];
const DIMS = ['category', 'supplier', 'payMethod'] as const;
type Dim = (typeof DIMS)[number];

/** The preset ranges, as whole months of Israel's calendar (the business's), whatever the browser's zone. */
function preset(k: 'lastMonth' | 'thisMonth' | 'last3' | 'thisYear', today = new Date()) {
  const { y, m: mo } = israelToday(today);
  if (k === 'lastMonth') return { from: calendarDay(y, mo - 1, 1), to: calendarDay(y, mo, 0) };
  if (k === 'thisMonth') return { from: calendarDay(y, mo, 1), to: calendarDay(y, mo + 1, 0) };
  if (k === 'last3') return { from: calendarDay(y, mo - 3, 1), to: calendarDay(y, mo, 0) };
  return { from: calendarDay(y, 1, 1), to: calendarDay(y, 12, 31) };
}

/** The invoice list behind a figure: the Invoices screen reads these filters from its URL. */
export function invoicesHref(f: Row['filter']): string {
  const q = new URLSearchParams({ from: f.from, to: f.to });
  if (f.category !== undefined) q.set('category', f.category);
  if (f.supplierKey !== undefined) q.set('supplier', f.supplierKey);
  if (f.payMark !== undefined) q.set('payMark', f.payMark);
  return `/invoices?${q}`;
}

function Figure({ r }: { r: Row }) {
  const { m, fill, money } = useI18n();
  return (
    <Anchor component={Link} to={invoicesHref(r.filter)} fw={600} aria-label={fill(m.reports.openInvoices, { amount: money(r.totalMinor, r.currency), n: r.count })}>
      <Money agorot={r.totalMinor} currency={r.currency} />
      {!r.exact && ' *'}
    </Anchor>
  );
}

/** One bar per month for a currency: plain elements, each bar a link with its figure in words. */
function MonthBars({ rows, currency }: { rows: Row[]; currency: string }) {
  const { m, fill, locale } = useI18n();
  const max = Math.max(1, ...rows.map((r) => Math.abs(r.totalMinor)));
  const monthName = (ym: string) => new Intl.DateTimeFormat(locale, { month: 'short', year: '2-digit', timeZone: 'UTC' }).format(new Date(`${ym}-01T00:00:00Z`));
  return (
    <Card withBorder mb="md">
      <Title order={3} size="h5" mb="sm" id={`chart-${currency}`}>
        {fill(m.reports.chart, { currency })}
      </Title>
      <ul className="bars" aria-labelledby={`chart-${currency}`} data-testid={`chart-${currency}`}>
        {rows.map((r) => (
          <li key={r.month}>
            <Link to={invoicesHref(r.filter)} className="bar-link">
              <span className="bar-value">
                <Money agorot={r.totalMinor} currency={r.currency} />
              </span>
              <span className="bar-track" aria-hidden="true">
                <span className="bar-fill" style={{ height: `${Math.max(2, (Math.abs(r.totalMinor) / max) * 100)}%` }} />
              </span>
              <span className="bar-label">{monthName(r.month!)}</span>
              <VisuallyHidden>{fill(m.reports.bar, { n: r.count })}</VisuallyHidden>
            </Link>
          </li>
        ))}
      </ul>
    </Card>
  );
}

function RowsTable({ caption, rows, dim }: { caption: string; rows: Row[]; dim: Dim }) {
  const { m, fill, money, number } = useI18n();
  return (
    <Table mb="md" withTableBorder verticalSpacing="xs" layout="fixed">
      <Table.Caption style={{ captionSide: 'top', textAlign: 'start', fontWeight: 600 }}>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th style={{ width: '42%' }}>{m.reports.dims[dim]}</Table.Th>
          <Table.Th style={{ width: '18%' }}>{m.reports.invoices}</Table.Th>
          <Table.Th>{m.reports.total}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((r) => (
          <Table.Tr key={`${r.key}\u0000${r.currency}`}>
            <Table.Td className="wrap-anywhere">{(dim === 'category' && r.key ? categoryName(m, { id: r.key, label: r.label ?? '' }) : r.label) || (dim === 'category' ? m.reports.uncategorized : '—')}</Table.Td>
            <Table.Td>{number(r.count)}</Table.Td>
            <Table.Td>
              <Figure r={r} />
              {r.count > r.withoutVat && (
                <Text size="xs" c="dimmed">
                  {fill(m.reports.vatNet, { vat: money(r.vatMinor, r.currency), net: money(r.netMinor, r.currency) })}
                </Text>
              )}
              {r.withoutVat > 0 && (
                <Text size="xs" c="dimmed">
                  {fill(m.reports.withoutVat, { n: r.withoutVat })}
                </Text>
              )}
              {r.vatIsTotal > 0 && (
                <Text size="xs" fw={600}>
                  {fill(m.readingFix.rowFlag, { n: r.vatIsTotal })}
                </Text>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Report({ s }: { s: Summary }) {
  const { m, fill, locale } = useI18n();
  const currencies = [...new Set(s.byMonth.map((r) => r.currency))];
  const months = [...new Set(s.rows.map((r) => r.month!))].sort();
  const monthName = (ym: string) => new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${ym}-01T00:00:00Z`));
  const anyInexact = [...s.rows, ...s.byMonth, ...s.byKey, ...s.totals].some((r) => !r.exact);
  return (
    <>
      <Title order={2} size="h4" mb="xs">
        {m.reports.totals}
      </Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} mb="md" data-testid="totals">
        {s.totals.map((t) => (
          <Card key={t.currency} withBorder padding="sm">
            <Text size="sm" c="dimmed">
              {t.currency} · {fill(m.reports.invoicesCount, { n: t.count })}
            </Text>
            <Text size="xl">
              <Figure r={t} />
            </Text>
          </Card>
        ))}
      </SimpleGrid>
      <Title order={2} size="h4" mb="xs">
        {m.reports.byMonth}
      </Title>
      {currencies.map((c) => (
        <MonthBars key={c} currency={c} rows={s.byMonth.filter((r) => r.currency === c)} />
      ))}
      <Title order={2} size="h4" mb="xs">
        {m.reports.table}
      </Title>
      <div data-testid="spend-table">
        {months.length > 1 && <RowsTable caption={m.reports.totals} rows={s.byKey} dim={s.by} />}
        {months.map((mo) => (
          <RowsTable key={mo} caption={monthName(mo)} rows={s.rows.filter((r) => r.month === mo)} dim={s.by} />
        ))}
      </div>
      <Stack gap={2}>
        {anyInexact && (
          <Text size="sm" c="dimmed">
            {m.reports.notExact}
          </Text>
        )}
        {s.withoutAmount > 0 && (
          <Text size="sm" c="dimmed">
            {fill(m.reports.withoutAmount, { n: s.withoutAmount })}
          </Text>
        )}
        {s.duplicates > 0 && (
          <Text size="sm" c="dimmed">
            {fill(m.reports.duplicates, { n: s.duplicates })}
          </Text>
        )}
        {s.vatIsTotal.length > 0 && (
          <Alert color="orange" data-testid="vat-is-total">
            {fill(m.readingFix.reportFlag, { n: s.vatIsTotal.length })}{' '}
            {s.vatIsTotal.map((id, i) => (
              <Anchor key={id} component={Link} to={`/invoices/${id}`} me="xs" c="inherit" underline="always">
                {fill(m.readingFix.openInvoice, { n: i + 1 })}
              </Anchor>
            ))}
          </Alert>
        )}
      </Stack>
    </>
  );
}

/** Spend by month and by category, supplier or pay method; the range and the breakdown live in the URL. */
export default function Reports() {
  const { m, fill } = useI18n();
  const [params, setParams] = useSearchParams();
  const def = preset('lastMonth');
  const from = params.get('from') || def.from;
  const to = params.get('to') || def.to;
  const by = (DIMS as readonly string[]).includes(params.get('by') ?? '') ? (params.get('by') as Dim) : 'category';
  const summary = useApi('spendSummary', { from, to, by }, { placeholderData: (p) => p });
  const exp = useApiMutation('spendExport');
  const set = (next: Record<string, string>) => {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) p.set(k, v);
    exp.reset();
    setParams(p, { replace: true });
  };
  const presetKeys = ['lastMonth', 'thisMonth', 'last3', 'thisYear'] as const;
  const active = presetKeys.find((k) => preset(k).from === from && preset(k).to === to);
  return (
    <>
      <PageTitle
        actions={
          <Button variant="default" loading={exp.isPending} onClick={() => exp.mutate({ from, to, by })}>
            {m.reports.export}
          </Button>
        }
      >
        {m.reports.title}
      </PageTitle>
      {exp.isError && <ErrorAlert error={exp.error} />}
      {exp.isSuccess && (
        <Card withBorder mb="md" role="status">
          <Group justify="space-between" wrap="wrap">
            <Text>{fill(m.reports.exportReady, { n: exp.data.rows })}</Text>
            <Button component="a" href={exp.data.url} download={exp.data.fileName} data-testid="csv-link">
              {m.reports.downloadCsv}
            </Button>
          </Group>
        </Card>
      )}
      <Card withBorder mb="md">
        <Stack gap="sm">
          <Group gap="xs" role="group" aria-label={m.reports.range}>
            {presetKeys.map((k) => (
              <Button key={k} size="xs" variant={active === k ? 'filled' : 'default'} aria-pressed={active === k} onClick={() => set(preset(k))}>
                {m.reports.presets[k]}
              </Button>
            ))}
          </Group>
          <SimpleGrid cols={{ base: 2 }}>
            <TextInput type="date" label={m.reports.from} value={from} onChange={(e) => e.currentTarget.value && set({ from: e.currentTarget.value })} />
            <TextInput type="date" label={m.reports.to} value={to} onChange={(e) => e.currentTarget.value && set({ to: e.currentTarget.value })} />
          </SimpleGrid>
          <div>
            <Text size="sm" fw={500} id="spend-by" mb={4}>
              {m.reports.by}
            </Text>
            <SegmentedControl aria-labelledby="spend-by" fullWidth data={DIMS.map((d) => ({ value: d, label: m.reports.dims[d] }))} value={by} onChange={(v) => set({ by: v })} />
          </div>
        </Stack>
      </Card>
      {summary.isPending ? (
        <ListSkeleton rows={4} />
      ) : summary.isError ? (
        <ErrorAlert error={summary.error} onRetry={() => void summary.refetch()} />
      ) : !summary.data.rows.length ? (
        <Empty
          title={m.reports.empty}
          body={m.reports.emptyBody}
          action={
            <Button component={Link} to="/invoices">
              {m.nav.invoices}
            </Button>
          }
        />
      ) : (
        <Report s={summary.data} />
      )}
    </>
  );
}
