import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Alert, Anchor, Button, Card, Checkbox, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, Money, PageTitle } from '../../ui/common.tsx';
import { payoutText } from '../../ui/serverText.ts';
import { fieldErrors } from '../../ui/fieldErrors.ts';
import { Steps } from '../../ui/Ltr.tsx';
import type { PaymentRow } from '../../ui/cards.tsx';
import type { RunView } from './payApi.ts';
import { dayText, israelToday, refusals, refusalText, RunStatusBadge } from './runParts.tsx';

type Row = PaymentRow;
type Group = 'pending' | 'approved' | 'rejected';
const GROUPS: readonly Group[] = ['pending', 'approved', 'rejected'];

const groupOf = (p: Row): Group => (p.approval?.state === 'pending' ? 'pending' : p.approval?.state === 'rejected' ? 'rejected' : 'approved');

function DueLine({ day }: { day: string }) {
  const { m, fill, date } = useI18n();
  const today = israelToday();
  const over = day < today;
  return (
    <Text size="sm" c={over ? 'red.9' : undefined} fw={over ? 600 : undefined} data-testid="due">
      {day === today ? m.pay.dueToday : fill(over ? m.pay.overdue : m.pay.due, { date: dayText(date, day) })}
    </Text>
  );
}

function PayRow({ p, checked, onToggle, refused }: { p: Row; checked: boolean; onToggle(): void; refused?: string }) {
  const { m, fill } = useI18n();
  return (
    <Card withBorder padding="sm" radius="md" data-testid="pay-row" data-payment={p.id} style={p.payoutChanged || refused ? { borderColor: 'var(--mantine-color-red-7)', borderWidth: 2 } : undefined}>
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <Checkbox mt={4} checked={checked} onChange={onToggle} aria-label={fill(m.pay.select, { name: p.supplierName })} />
        <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
          <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
            <Anchor component={Link} to={`/payments/${p.id}`} fw={600} className="wrap-anywhere">
              {p.supplierName}
            </Anchor>
            <Text fw={700} style={{ flexShrink: 0 }}>
              <Money agorot={p.totalAgorot} currency={p.currency} />
            </Text>
          </Group>
          <Text size="sm" c="dimmed" lineClamp={1} className="wrap-anywhere">
            {p.description}
          </Text>
          {p.dueDate && <DueLine day={p.dueDate} />}
          <span className="pay-card-tags">
            {p.payoutChanged && (
              <span className="tag" data-color="red" data-filled="">
                {m.pay.payoutChanged}
              </span>
            )}
            {p.runId && (
              <Link to={`/pay/runs/${p.runId}`} className="tag" data-color="blue">
                {m.pay.inRun}
              </Link>
            )}
          </span>
          {p.payoutChanged && p.payoutChange && (
            <Text size="sm" data-testid="payout-change">
              <Steps steps={[payoutText(p.payoutChange.previous, m), payoutText(p.payoutChange.filed, m)]} />
            </Text>
          )}
          {p.approval?.state === 'rejected' && p.approval.rejection && (
            <Text size="sm" className="wrap-anywhere">
              {fill(m.pay.approval.reasonLine, { reason: p.approval.rejection.reason })}
            </Text>
          )}
          {refused && (
            <Text size="sm" c="red.9" fw={600} data-testid="refusal" role="note">
              {refused}
            </Text>
          )}
        </Stack>
      </Group>
    </Card>
  );
}

function RunsList() {
  const { m, fill, date, number } = useI18n();
  const runs = useApi('payRunsList', { limit: 10 }, { refetchInterval: 15_000 });
  return (
    <section aria-labelledby="runs-title">
      <Title order={2} size="h4" id="runs-title" mb="xs">
        {m.pay.runsTitle}
      </Title>
      {runs.isPending ? (
        <ListSkeleton rows={2} />
      ) : runs.isError ? (
        <ErrorAlert error={runs.error} onRetry={() => void runs.refetch()} />
      ) : !runs.data.items.length ? (
        <Text c="dimmed">{m.pay.noRuns}</Text>
      ) : (
        <Stack gap="xs" data-testid="runs">
          {runs.data.items.map((r: RunView) => (
            <Link key={r.id} to={`/pay/runs/${r.id}`} className="pay-card">
              <span className="pay-card-main">
                <span className="pay-card-name">{r.serial !== null ? fill(m.pay.runName, { serial: r.serial }) : fill(m.pay.runNameDate, { date: dayText(date, r.payDate) })}</span>
                <span className="pay-card-desc">{fill(m.pay.runCard, { date: dayText(date, r.payDate), n: number(r.items.length) })}</span>
                <span className="pay-card-tags">
                  <RunStatusBadge status={r.status} plain />
                </span>
              </span>
              <span className="pay-card-side">
                {r.totals.map((t) => (
                  <span key={t.currency} className="pay-card-amount">
                    <Money agorot={t.totalAgorot} currency={t.currency} />
                  </span>
                ))}
              </span>
            </Link>
          ))}
        </Stack>
      )}
    </section>
  );
}

/** "To pay": the ready payments by approval state; the selected ones become a payment run. */
export default function Pay() {
  const { m, fill, date, number } = useI18n();
  const navigate = useNavigate();
  const list = useApi('paymentsList', { status: 'ready', limit: 200 }, { refetchInterval: 15_000 });
  const create = useApiMutation('payRunCreate', ['paymentsList', 'payRunsList', 'paymentGet', 'attention']);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [payDate, setPayDate] = useState('');
  const [note, setNote] = useState('');
  const rows: Row[] = list.data?.items ?? [];
  const byGroup = useMemo(() => {
    const g: Record<Group, Row[]> = { pending: [], approved: [], rejected: [] };
    for (const p of rows) g[groupOf(p)].push(p);
    return g;
  }, [rows]);
  // Only what is still listed counts as selected (a payment paid meanwhile drops out).
  const chosen = rows.filter((p) => selected.has(p.id));
  const refused = create.isError ? refusals(create.error) : null;
  const refusedHere = refused ? chosen.filter((p) => refused.has(p.id)).length : 0;
  const refusedElsewhere = refused ? [...refused].filter(([id]) => !rows.some((p) => p.id === id)) : [];
  // What the server will choose when no date is given: the earliest due date among them, else today in Israel.
  const today = israelToday();
  const dues = chosen.map((p) => p.dueDate).filter((d): d is string => Boolean(d)).sort();
  const defaultDay = dues[0] && dues[0] > today ? dues[0] : today;
  const { byField } = fieldErrors(create.error, ['payDate', 'note'] as const);
  const totals = new Map<string, number>();
  for (const p of chosen) totals.set(p.currency, (totals.get(p.currency) ?? 0) + p.totalAgorot);

  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const toggleGroup = (g: Group, on: boolean) =>
    setSelected((s) => {
      const n = new Set(s);
      for (const p of byGroup[g]) if (on) n.add(p.id);
      else n.delete(p.id);
      return n;
    });
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!chosen.length) return;
    create.mutate(
      { paymentIds: chosen.map((p) => p.id), ...(payDate ? { payDate } : {}), ...(note.trim() ? { note: note.trim() } : {}) },
      { onSuccess: (run) => navigate(`/pay/runs/${run.id}`) },
    );
  };

  return (
    <>
      <PageTitle>{m.pay.title}</PageTitle>
      <Stack gap="lg">
        <Text size="sm">{m.pay.intro}</Text>
        {list.isPending ? (
          <ListSkeleton rows={3} />
        ) : list.isError ? (
          <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
        ) : !rows.length ? (
          <Empty title={m.pay.empty} body={m.pay.emptyBody} />
        ) : (
          <>
            {GROUPS.filter((g) => byGroup[g].length).map((g) => {
              const items = byGroup[g];
              const on = items.filter((p) => selected.has(p.id)).length;
              return (
                <section key={g} aria-labelledby={`group-${g}`} data-testid={`group-${g}`}>
                  <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
                    <Title order={2} size="h4" id={`group-${g}`}>
                      {m.pay.groups[g]} ({number(items.length)})
                    </Title>
                    <Checkbox
                      label={m.all}
                      aria-label={fill(m.pay.selectAll, { group: m.pay.groups[g] })}
                      checked={on === items.length}
                      indeterminate={on > 0 && on < items.length}
                      onChange={(e) => toggleGroup(g, e.currentTarget.checked)}
                    />
                  </Group>
                  {m.pay.groupHint[g] && (
                    <Text size="sm" c="dimmed" mb="xs">
                      {m.pay.groupHint[g]}
                    </Text>
                  )}
                  <Stack gap="xs">
                    {items.map((p) => (
                      <PayRow key={p.id} p={p} checked={selected.has(p.id)} onToggle={() => toggle(p.id)} refused={refused?.has(p.id) ? refusalText(m, refused.get(p.id)!) : undefined} />
                    ))}
                  </Stack>
                </section>
              );
            })}
            <Card withBorder component="section" aria-labelledby="create-title" data-testid="create-run">
              <form onSubmit={submit} noValidate>
                <Stack gap="sm">
                  <Title order={2} size="h4" id="create-title">
                    {m.pay.createTitle}
                  </Title>
                  <Text size="sm" role="status" data-testid="selection">
                    {chosen.length ? fill(m.pay.selected, { n: number(chosen.length) }) : m.pay.selectedNone}
                    {[...totals].map(([c, a]) => (
                      <span key={c}>
                        {' · '}
                        <Money agorot={a} currency={c} />
                      </span>
                    ))}
                  </Text>
                  <Group grow wrap="wrap" align="flex-start">
                    <TextInput type="date" label={m.pay.payDate} description={fill(m.pay.payDateDefault, { date: dayText(date, defaultDay) })} value={payDate} min={today} onChange={(e) => setPayDate(e.currentTarget.value)} error={byField.payDate} style={{ minWidth: 200 }} />
                    <TextInput label={m.pay.note} value={note} onChange={(e) => setNote(e.currentTarget.value)} maxLength={200} error={byField.note} style={{ minWidth: 200 }} />
                  </Group>
                  {refused ? (
                    <Alert color="red" title={m.pay.refusedTitle} role="alert" data-testid="run-refused">
                      <Text size="sm">{fill(m.pay.refusedBody, { n: number(refused.size) })}</Text>
                      {refusedHere < refused.size &&
                        refusedElsewhere.map(([id, code]) => (
                          <Text size="sm" key={id}>
                            {fill(m.pay.refusedOther, { id, reason: refusalText(m, code) })}
                          </Text>
                        ))}
                    </Alert>
                  ) : (
                    create.isError && !byField.payDate && !byField.note && <ErrorAlert error={create.error} />
                  )}
                  <Group>
                    <Button type="submit" disabled={!chosen.length} loading={create.isPending}>
                      {m.pay.create}
                    </Button>
                  </Group>
                </Stack>
              </form>
            </Card>
          </>
        )}
        <RunsList />
      </Stack>
    </>
  );
}
