import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Alert, Anchor, Button, Card, Checkbox, Group, Modal, NativeSelect, Radio, SegmentedControl, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useI18n, type I18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ApiError, type Input, type Output } from '../../api/client.ts';
import { Empty, ErrorAlert, ListSkeleton, Money, PageTitle } from '../../ui/common.tsx';
import { MoneyInput } from '../../ui/MoneyInput.tsx';
import { fieldErrors } from '../../ui/fieldErrors.ts';
import { NO_VAT_CURRENCIES, agorotToInput, parseAgorot, vatOf } from '../../money.ts';
import { dayText, israelToday } from '../payruns/runParts.tsx';

type Schedule = Output<'recurringList'>['items'][number];
type Currency = 'ILS' | 'USD' | 'EUR';
type Cadence = 'monthly' | 'weekly' | 'yearly';

const AFTER = ['recurringList', 'recurringGet', 'paymentsList', 'attention', 'listActivity'] as const;

/** The API names a template's field `template.x`; the schedule's own fields by their names. */
const FIELDS = ['template.supplierName', 'template.supplierPhone', 'template.supplierEmail', 'template.description', 'template.amountAgorot', 'template.payMethods', 'dayOfMonth', 'weekday', 'month', 'startDate', 'endDate', 'dueInDays'] as const;

const monthName = (locale: string, month: number) => new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' }).format(Date.UTC(2026, month - 1, 1));

/** A schedule's cadence in words ("כל חודש, ב-5 בחודש"). */
export function cadenceText(i: I18n, s: { cadence: Cadence; dayOfMonth: number | null; weekday: number | null; month: number | null }): string {
  const { m, fill, locale } = i;
  return fill(m.recurring.every[s.cadence], { day: s.dayOfMonth ?? '', weekday: s.weekday !== null ? m.recurring.weekdays[s.weekday]! : '', month: s.month ? monthName(locale, s.month) : '' });
}

/** The form's values: what the owner types, as text. */
export interface FormValues {
  supplierName: string;
  supplierPhone: string;
  supplierEmail: string;
  amount: string;
  currency: Currency;
  vatIncluded: boolean;
  noVat: boolean | null;
  openAmount: boolean;
  description: string;
  bank: boolean;
  bit: boolean;
  invoiceRequired: boolean;
  channel: 'auto' | 'link';
  cadence: Cadence;
  dayOfMonth: string;
  weekday: string;
  month: string;
  startDate: string;
  endDate: string;
  dueInDays: string;
}

/** A new schedule: monthly on today's day (capped at 28), starting today. */
export function emptyForm(): FormValues {
  const today = israelToday();
  return {
    supplierName: '', supplierPhone: '', supplierEmail: '', amount: '', currency: 'ILS', vatIncluded: true, noVat: null, openAmount: false, description: '',
    bank: true, bit: false, invoiceRequired: true, channel: 'auto',
    cadence: 'monthly', dayOfMonth: String(Math.min(28, Number(today.slice(8, 10)))), weekday: String(new Date(`${today}T12:00:00Z`).getUTCDay()), month: String(Number(today.slice(5, 7))),
    startDate: today, endDate: '', dueInDays: '',
  };
}

function formOf(s: Schedule): FormValues {
  const t = s.template;
  const base = emptyForm();
  return {
    ...base,
    supplierName: t.supplierName, supplierPhone: t.supplierPhone ?? '', supplierEmail: t.supplierEmail ?? '',
    amount: t.openAmount && !t.amountAgorot ? '' : agorotToInput(t.amountAgorot), currency: t.currency, vatIncluded: t.vatIncluded, noVat: t.noVat, openAmount: t.openAmount,
    description: t.description, bank: t.payMethods.length === 0 || t.payMethods.includes('bank'), bit: t.payMethods.length === 0 || t.payMethods.includes('bit'),
    invoiceRequired: t.invoiceRequired, channel: t.channel === 'link' ? 'link' : 'auto',
    cadence: s.cadence, dayOfMonth: String(s.dayOfMonth ?? base.dayOfMonth), weekday: String(s.weekday ?? base.weekday), month: String(s.month ?? base.month),
    startDate: s.startDate, endDate: s.endDate ?? '', dueInDays: s.dueInDays === null ? '' : String(s.dueInDays),
  };
}

/** The create or edit form; `schedule` given, it edits that one (future requests only). */
export function ScheduleForm({ initial, schedule, onDone }: { initial: FormValues; schedule?: Schedule; onDone(s: Schedule): void }) {
  const i = useI18n();
  const { m } = i;
  const create = useApiMutation('recurringCreate', [...AFTER]);
  const update = useApiMutation('recurringUpdate', [...AFTER]);
  const [f, setF] = useState(initial);
  const set = <K extends keyof FormValues>(k: K, v: FormValues[K]) => setF((o) => ({ ...o, [k]: v }));
  const mutation = schedule ? update : create;
  const { byField, rest } = fieldErrors(mutation.error, FIELDS);
  const general = mutation.isError && (!(mutation.error instanceof ApiError) || mutation.error.code !== 'invalid-argument' || rest.length > 0);
  const agorot = parseAgorot(f.amount);
  const amountOk = f.openAmount ? f.amount.trim() === '' || agorot !== null : agorot !== null && agorot > 0;
  const contactOk = f.supplierPhone.trim() !== '' || f.supplierEmail.trim() !== '';
  const dueOk = f.dueInDays.trim() === '' || /^\d{1,3}$/.test(f.dueInDays.trim());
  const ok = amountOk && contactOk && dueOk && f.supplierName.trim() !== '' && f.description.trim() !== '' && f.startDate !== '';
  const noVat = f.noVat ?? NO_VAT_CURRENCIES.includes(f.currency);
  const rule = {
    cadence: f.cadence,
    ...(f.cadence !== 'weekly' ? { dayOfMonth: Number(f.dayOfMonth) } : {}),
    ...(f.cadence === 'weekly' ? { weekday: Number(f.weekday) } : {}),
    ...(f.cadence === 'yearly' ? { month: Number(f.month) } : {}),
    startDate: f.startDate,
  };
  const payMethods = [...(f.bank ? ['bank' as const] : []), ...(f.bit ? ['bit' as const] : [])];

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!ok) return;
    const money = { amountAgorot: agorot ?? 0, openAmount: f.openAmount, currency: f.currency, vatIncluded: f.vatIncluded, ...(f.noVat !== null ? { noVat: f.noVat } : {}) };
    if (schedule) {
      const t = schedule.template;
      const input: Input<'recurringUpdate'> = {
        id: schedule.id,
        template: {
          supplierName: f.supplierName.trim(), description: f.description.trim(), ...money, payMethods, invoiceRequired: f.invoiceRequired, channel: f.channel === 'link' ? 'link' : null,
          // A contact sent is a (maybe other) supplier: only when changed.
          ...(f.supplierPhone.trim() !== (t.supplierPhone ?? '') && f.supplierPhone.trim() ? { supplierPhone: f.supplierPhone.trim() } : {}),
          ...(f.supplierEmail.trim() !== (t.supplierEmail ?? '') && f.supplierEmail.trim() ? { supplierEmail: f.supplierEmail.trim() } : {}),
        },
        ...rule,
        endDate: f.endDate || null,
        dueInDays: f.dueInDays.trim() ? Number(f.dueInDays) : null,
      };
      update.mutate(input, { onSuccess: onDone });
    } else {
      const input: Input<'recurringCreate'> = {
        template: {
          supplierName: f.supplierName.trim(), description: f.description.trim(), ...money, payMethods, invoiceRequired: f.invoiceRequired,
          ...(f.supplierPhone.trim() ? { supplierPhone: f.supplierPhone.trim() } : {}),
          ...(f.supplierEmail.trim() ? { supplierEmail: f.supplierEmail.trim() } : {}),
          ...(f.channel === 'link' ? { channel: 'link' as const } : {}),
        },
        ...rule,
        ...(f.endDate ? { endDate: f.endDate } : {}),
        ...(f.dueInDays.trim() ? { dueInDays: Number(f.dueInDays) } : {}),
      };
      create.mutate(input, { onSuccess: onDone });
    }
  };

  const days = Array.from({ length: 28 }, (_, d) => String(d + 1));
  return (
    <form onSubmit={submit} noValidate data-testid="schedule-form">
      <Stack>
        <TextInput label={m.newPayment.supplierName} value={f.supplierName} onChange={(e) => set('supplierName', e.currentTarget.value)} error={byField['template.supplierName']} required />
        <Group grow wrap="wrap" align="flex-start">
          <TextInput label={m.newPayment.supplierPhone} type="tel" dir="ltr" value={f.supplierPhone} onChange={(e) => set('supplierPhone', e.currentTarget.value)} error={byField['template.supplierPhone']} autoComplete="off" />
          <TextInput label={m.newPayment.supplierEmail} type="email" dir="ltr" value={f.supplierEmail} onChange={(e) => set('supplierEmail', e.currentTarget.value)} error={byField['template.supplierEmail']} autoComplete="off" />
        </Group>
        <Textarea label={m.newPayment.description} description={m.recurring.descriptionHint} value={f.description} onChange={(e) => set('description', e.currentTarget.value)} error={byField['template.description']} required autosize minRows={2} />
        <Group grow wrap="wrap" align="flex-start">
          <MoneyInput label={m.newPayment.amount} value={f.amount} onChange={(v) => set('amount', v)} currency={f.currency} required={!f.openAmount} />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="rec-currency-label">
              {m.money.currency}
            </Text>
            <SegmentedControl aria-labelledby="rec-currency-label" value={f.currency} onChange={(v) => set('currency', v as Currency)} data={['ILS', 'USD', 'EUR']} />
          </Stack>
        </Group>
        {byField['template.amountAgorot'] && (
          <Text size="sm" c="red.9">
            {byField['template.amountAgorot']}
          </Text>
        )}
        <Switch label={m.money.noVat} description={m.money.noVatHint} checked={noVat} onChange={(e) => set('noVat', e.currentTarget.checked)} />
        {!noVat && <Switch label={m.money.vatIncluded} checked={f.vatIncluded} onChange={(e) => set('vatIncluded', e.currentTarget.checked)} />}
        <Switch label={m.newPayment.openAmount} checked={f.openAmount} onChange={(e) => set('openAmount', e.currentTarget.checked)} />
        <Switch label={m.newPayment.invoiceRequired} checked={f.invoiceRequired} onChange={(e) => set('invoiceRequired', e.currentTarget.checked)} />
        <Checkbox.Group label={m.newPayment.payMethods} error={byField['template.payMethods']} value={payMethods} onChange={(v) => setF((o) => ({ ...o, bank: v.includes('bank'), bit: v.includes('bit') }))}>
          <Group mt={4}>
            <Checkbox value="bank" label={m.newPayment.bank} />
            <Checkbox value="bit" label={m.newPayment.bit} />
          </Group>
        </Checkbox.Group>
        <Radio.Group label={m.newPayment.channel} value={f.channel} onChange={(v) => set('channel', v as 'auto' | 'link')}>
          <Stack gap={6} mt={4}>
            <Radio value="auto" label={m.newPayment.channelAuto} />
            <Radio value="link" label={m.newPayment.channelLink} description={m.newPayment.channelLinkHint} />
          </Stack>
        </Radio.Group>
        <Stack gap={4}>
          <Text size="sm" fw={500} id="rec-cadence-label">
            {m.recurring.cadence}
          </Text>
          <SegmentedControl aria-labelledby="rec-cadence-label" value={f.cadence} onChange={(v) => set('cadence', v as Cadence)} data={(['monthly', 'weekly', 'yearly'] as const).map((c) => ({ value: c, label: m.recurring.cadences[c] }))} />
        </Stack>
        <Group grow wrap="wrap" align="flex-start">
          {f.cadence === 'yearly' && <NativeSelect label={m.recurring.month} value={f.month} onChange={(e) => set('month', e.currentTarget.value)} error={byField.month} data={Array.from({ length: 12 }, (_, k) => ({ value: String(k + 1), label: monthName(i.locale, k + 1) }))} />}
          {f.cadence !== 'weekly' && <NativeSelect label={m.recurring.dayOfMonth} value={f.dayOfMonth} onChange={(e) => set('dayOfMonth', e.currentTarget.value)} error={byField.dayOfMonth} data={days} />}
          {f.cadence === 'weekly' && <NativeSelect label={m.recurring.weekday} value={f.weekday} onChange={(e) => set('weekday', e.currentTarget.value)} error={byField.weekday} data={m.recurring.weekdays.map((w, k) => ({ value: String(k), label: w }))} />}
        </Group>
        <Group grow wrap="wrap" align="flex-start">
          <TextInput type="date" label={m.recurring.startDate} value={f.startDate} onChange={(e) => set('startDate', e.currentTarget.value)} error={byField.startDate} required />
          <TextInput type="date" label={m.recurring.endDate} value={f.endDate} onChange={(e) => set('endDate', e.currentTarget.value)} error={byField.endDate} />
        </Group>
        <TextInput label={m.recurring.dueInDays} inputMode="numeric" dir="ltr" value={f.dueInDays} onChange={(e) => set('dueInDays', e.currentTarget.value)} error={!dueOk ? m.recurring.dueInDaysBad : byField.dueInDays} style={{ maxWidth: 260 }} />
        {!contactOk && (
          <Text size="sm" c="red.9">
            {m.newPayment.contactNeeded}
          </Text>
        )}
        {general && <ErrorAlert error={mutation.error} />}
        <Button type="submit" loading={mutation.isPending} disabled={!ok}>
          {schedule ? m.save : m.recurring.create}
        </Button>
      </Stack>
    </form>
  );
}

function ScheduleCard({ s, onEdit }: { s: Schedule; onEdit(): void }) {
  const i = useI18n();
  const { m, fill, date, number } = i;
  const update = useApiMutation('recurringUpdate', [...AFTER]);
  const remove = useApiMutation('recurringDelete', [...AFTER]);
  const [asking, setAsking] = useState(false);
  const t = s.template;
  const total = vatOf(t.amountAgorot, t.vatIncluded, t.noVat ?? NO_VAT_CURRENCIES.includes(t.currency)).total;
  const last = s.payments[0];
  const failed = [update, remove].find((x) => x.isError);
  return (
    <Card withBorder padding="sm" radius="md" data-testid="schedule" data-schedule={s.id}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
          <Text fw={600} className="wrap-anywhere">
            {t.supplierName}
          </Text>
          <Text fw={700} style={{ flexShrink: 0 }} data-testid="schedule-amount">
            {t.openAmount && !t.amountAgorot ? m.newPayment.openAmount : <Money agorot={total} currency={t.currency} />}
          </Text>
        </Group>
        <Text size="sm" c="dimmed" className="wrap-anywhere" lineClamp={2} dir="auto" data-testid="schedule-description">
          {t.description}
        </Text>
        <Text size="sm" data-testid="schedule-cadence">
          {cadenceText(i, s)}
          {s.endDate ? ` · ${fill(m.recurring.until, { date: dayText(date, s.endDate) })}` : ''}
        </Text>
        {s.paused ? (
          <Text size="sm" fw={700} data-testid="schedule-paused">
            {m.recurring.paused}
            {s.pausedReason ? `: ${m.recurring.pausedReason[s.pausedReason]}` : ''}
          </Text>
        ) : (
          <Text size="sm" fw={600} data-testid="schedule-next">
            {s.nextAt ? fill(m.recurring.next, { date: dayText(date, s.nextAt) }) : m.recurring.noNext}
          </Text>
        )}
        <Text size="sm" c="dimmed" data-testid="schedule-made">
          {fill(m.recurring.made, { n: number(s.payments.length) })}
          {last && (
            <>
              {' · '}
              {m.recurring.lastMade}
              <Anchor component={Link} to={`/payments/${last.paymentId}`} size="sm" underline="always">
                {dayText(date, last.createdAt.slice(0, 10))}
              </Anchor>
            </>
          )}
        </Text>
        {failed && <ErrorAlert error={failed.error} />}
        <Group gap="xs" wrap="wrap" mt={4}>
          <Button size="xs" variant="light" loading={update.isPending} onClick={() => update.mutate({ id: s.id, paused: !s.paused })}>
            {s.paused ? m.recurring.resume : m.recurring.pause}
          </Button>
          <Button size="xs" variant="default" onClick={onEdit}>
            {m.recurring.edit}
          </Button>
          <Button size="xs" variant="outline" color="red.9" loading={remove.isPending} onClick={() => setAsking(true)}>
            {m.recurring.delete}
          </Button>
        </Group>
      </Stack>
      <Modal opened={asking} onClose={() => setAsking(false)} title={m.recurring.deleteTitle} centered closeButtonProps={{ 'aria-label': m.close }}>
        <Stack>
          <Text size="sm">{fill(m.recurring.deleteBody, { name: t.supplierName, n: number(s.payments.length) })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAsking(false)}>
              {m.cancel}
            </Button>
            <Button
              color="red.9"
              onClick={() => {
                setAsking(false);
                remove.mutate({ id: s.id });
              }}
            >
              {m.recurring.deleteGo}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Card>
  );
}

/** "Make this recurring": the payment's template, monthly on today's day. */
function useFromPayment(paymentId: string) {
  const p = useApi('paymentGet', { paymentId }, { enabled: paymentId !== '' });
  if (!p.data) return { pending: paymentId !== '' && p.isPending, error: p.isError ? p.error : null, values: null, name: '' };
  const d = p.data;
  const values: FormValues = {
    ...emptyForm(),
    supplierName: d.supplierName, supplierPhone: d.supplierPhone ?? '', supplierEmail: d.supplierEmail ?? '',
    amount: d.openAmount && !d.amountAgorot ? '' : agorotToInput(d.amountAgorot), currency: d.currency as Currency, vatIncluded: d.vatIncluded, noVat: d.noVat, openAmount: d.openAmount,
    description: d.description, bank: d.payMethods.length === 0 || d.payMethods.includes('bank'), bit: d.payMethods.length === 0 || d.payMethods.includes('bit'),
    invoiceRequired: d.invoiceRequired, channel: d.channel === 'link' ? 'link' : 'auto',
  };
  return { pending: false, error: null, values, name: d.supplierName };
}

export default function Recurring() {
  const { m, fill } = useI18n();
  const [params, setParams] = useSearchParams();
  const from = params.get('from') ?? '';
  const list = useApi('recurringList', {}, { refetchInterval: 15_000 });
  const [adding, setAdding] = useState(from !== '');
  const [editing, setEditing] = useState<Schedule | null>(null);
  const prefill = useFromPayment(from);
  useEffect(() => {
    if (from) setAdding(true);
  }, [from]);
  const done = () => {
    setAdding(false);
    if (from) setParams({}, { replace: true });
  };
  return (
    <>
      <PageTitle
        actions={
          !adding && (
            <Button onClick={() => setAdding(true)} data-testid="add-schedule">
              {m.recurring.add}
            </Button>
          )
        }
      >
        {m.recurring.title}
      </PageTitle>
      <Stack gap="lg">
        <Text>{m.recurring.intro}</Text>
        {adding && (
          <Card withBorder radius="md" component="section" aria-labelledby="new-schedule-title">
            <Title order={2} size="h4" id="new-schedule-title" mb="sm">
              {m.recurring.newTitle}
            </Title>
            {from && prefill.error ? (
              <ErrorAlert error={prefill.error} />
            ) : from && !prefill.values ? (
              <ListSkeleton rows={3} />
            ) : (
              <>
                {from && prefill.values && (
                  <Alert color="blue" mb="sm" data-testid="from-payment">
                    {fill(m.recurring.fromPayment, { name: prefill.name })}
                  </Alert>
                )}
                <ScheduleForm key={from || 'new'} initial={prefill.values ?? emptyForm()} onDone={done} />
              </>
            )}
            <Button variant="subtle" mt="xs" onClick={done}>
              {m.cancel}
            </Button>
          </Card>
        )}
        {list.isPending ? (
          <ListSkeleton rows={3} />
        ) : list.isError ? (
          <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
        ) : !list.data.items.length ? (
          <Empty title={m.recurring.empty} />
        ) : (
          <Stack gap="xs" data-testid="schedules">
            {list.data.items.map((s) => (
              <ScheduleCard key={s.id} s={s} onEdit={() => setEditing(s)} />
            ))}
          </Stack>
        )}
      </Stack>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={m.recurring.editTitle} centered size="lg" closeButtonProps={{ 'aria-label': m.close }}>
        {editing && <ScheduleForm key={editing.id} initial={formOf(editing)} schedule={editing} onDone={() => setEditing(null)} />}
      </Modal>
    </>
  );
}
