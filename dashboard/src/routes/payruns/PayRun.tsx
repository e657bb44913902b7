import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { Alert, Anchor, Button, Card, Checkbox, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { ConfirmModal } from '../../ui/ConfirmModal.tsx';
import { useI18n } from '../../i18n/i18n.tsx';
import type { Messages } from '../../i18n/he.ts';
import { ErrorAlert, ListSkeleton, Money, PageTitle } from '../../ui/common.tsx';
import { StatusBadge } from '../../ui/cards.tsx';
import { Ltr } from '../../ui/Ltr.tsx';
import { payoutText } from '../../ui/serverText.ts';
import { useApi, useApiMutation } from '../../ui/api.ts';
import type { RunView } from './payApi.ts';
import { dayText, refusals, refusalText, RunStatusBadge } from './runParts.tsx';

const AFTER = ['payRunGet', 'payRunsList', 'paymentsList', 'paymentGet', 'attention', 'listActivity'] as const;
const MASAV_FIELDS = ['masavInstitutionId', 'masavSenderId'];

/** A warning in the UI's words: missing MASAV codes name the Settings fields; anything else says its reason. */
function warningText(w: RunView['warnings'][number], r: RunView, m: Messages, fill: (t: string, v: Record<string, string>) => string): { text: string; settings: boolean } {
  const masav = w.fields.filter((f) => MASAV_FIELDS.includes(f));
  if (masav.length || /masav/i.test(w.reason)) {
    const names = (masav.length ? masav : MASAV_FIELDS).map((f) => (f === 'masavInstitutionId' ? m.pay.masav.institutionId : m.pay.masav.senderId));
    return { text: fill(m.pay.run.masavMissing, { fields: names.join(', ') }), settings: true };
  }
  if (w.reason === 'changedSinceRun') {
    const names = w.fields.map((id) => r.items.find((i) => i.paymentId === id)?.supplierName ?? id);
    return { text: fill(m.pay.run.changedWarning, { names: names.map((n) => `\u2068${n}\u2069`).join(', ') }), settings: false };
  }
  return { text: fill(m.pay.run.warningOther, { reason: (m.pay.refusal as Record<string, string>)[w.reason] ?? w.reason }), settings: false };
}

function bytes(n: number, locale: string): string {
  const kb = n / 1024;
  return kb < 1 ? new Intl.NumberFormat(locale, { style: 'unit', unit: 'byte' }).format(n) : new Intl.NumberFormat(locale, { style: 'unit', unit: 'kilobyte', maximumFractionDigits: 1 }).format(kb);
}

/** One payment run: its totals, its payments, the bank files, and marking it paid or canceling it. */
export default function PayRun() {
  const { runId = '' } = useParams();
  const { m, fill, date, number, locale } = useI18n();
  const q = useApi('payRunGet', { runId });
  const markPaid = useApiMutation('payRunMarkPaid', [...AFTER]);
  const cancel = useApiMutation('payRunCancel', [...AFTER]);
  const [asking, setAsking] = useState<'paid' | 'some' | 'cancel' | null>(null);
  // Payments picked to be marked paid on their own (the rest stay in the run).
  const [picked, setPicked] = useState<Set<string>>(new Set());
  if (q.isPending)
    return (
      <>
        <PageTitle>{m.loading}</PageTitle>
        <ListSkeleton rows={4} />
      </>
    );
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} />;
  const r = q.data;
  const open = r.status === 'open' || r.status === 'partly_paid';
  const payable = (it: RunView['items'][number]) => open && it.paymentStatus !== 'paid' && it.paymentStatus !== 'canceled';
  const chosen = r.items.filter((it) => picked.has(it.paymentId) && payable(it)).map((it) => it.paymentId);
  const pick = (id: string) =>
    setPicked((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  // Payments the run could not pay: from the last answer (some paid, some not) or its refusal (none paid).
  const notPaid = markPaid.data?.refused.length ? new Map(markPaid.data.refused.map((x) => [x.paymentId, x.reason])) : markPaid.isError ? refusals(markPaid.error) : null;
  const failed = [markPaid, cancel].find((x) => x.isError && !(x === markPaid && notPaid));
  return (
    <>
      <PageTitle actions={<RunStatusBadge status={r.status} />}>{r.serial !== null ? fill(m.pay.run.title, { serial: r.serial }) : fill(m.pay.run.titleDate, { date: dayText(date, r.payDate) })}</PageTitle>
      <Stack gap="lg">
        <Anchor component={Link} to="/pay" size="sm">
          {m.pay.run.back}
        </Anchor>
        <Card withBorder>
          <Stack gap={4}>
            <Text fw={600}>{fill(m.pay.run.payDate, { date: dayText(date, r.payDate) })}</Text>
            <Text size="sm" c="dimmed">
              {fill(m.pay.run.createdBy, { date: date(r.createdAt, true), email: '' })}
              <Ltr>{r.createdByEmail}</Ltr>
            </Text>
            {r.paidAt && <Text size="sm">{fill(m.pay.run.paidAt, { date: date(r.paidAt, true) })}</Text>}
            {r.canceledAt && <Text size="sm">{fill(m.pay.run.canceledAt, { date: date(r.canceledAt, true) })}</Text>}
            {r.proof && (
              <Anchor href={r.proof.url} target="_blank" rel="noopener" size="sm" className="wrap-anywhere">
                {r.proof.fileName}
              </Anchor>
            )}
            {r.note && (
              <Text size="sm" className="wrap-anywhere">
                {fill(m.pay.run.note, { note: r.note })}
              </Text>
            )}
          </Stack>
        </Card>

        {r.warnings.length > 0 && (
          <Alert color="orange" title={m.pay.run.warnings} data-testid="run-warnings">
            <Stack gap="xs">
              {r.warnings.map((w, i) => {
                const t = warningText(w, r, m, fill);
                return (
                  <Group key={i} gap="xs" wrap="wrap">
                    <Text size="sm">{t.text}</Text>
                    {t.settings && (
                      // Dark and underlined: the theme's blue is under AA contrast on the alert's orange.
                      <Anchor component={Link} to="/settings/pay" size="sm" c="dark" underline="always" fw={600}>
                        {m.pay.run.toSettings}
                      </Anchor>
                    )}
                  </Group>
                );
              })}
            </Stack>
          </Alert>
        )}
        {failed && <ErrorAlert error={failed.error} />}
        {notPaid && (
          <Alert color="red" title={m.pay.run.refusedTitle} role="alert" data-testid="mark-refused">
            {markPaid.data && <Text size="sm">{fill(m.pay.run.paidNow, { n: number(markPaid.data.paidNow.length), skipped: number(markPaid.data.alreadyPaid.length) })}</Text>}
            {r.items
              .filter((it) => notPaid.has(it.paymentId))
              .map((it) => (
                <Text size="sm" key={it.paymentId}>
                  {it.supplierName}: {refusalText(m, notPaid.get(it.paymentId)!)}
                </Text>
              ))}
          </Alert>
        )}

        <section aria-labelledby="totals-title">
          <Title order={2} size="h4" id="totals-title" mb="xs">
            {m.pay.run.totals}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 3 }} data-testid="run-totals">
            {r.totals.map((t) => (
              <Card key={t.currency} withBorder padding="sm">
                <Text fw={700} size="xl">
                  <Money agorot={t.totalAgorot} currency={t.currency} />
                </Text>
                <Text size="sm" c="dimmed">
                  {fill(m.pay.run.totalCount, { n: number(t.count) })}
                </Text>
              </Card>
            ))}
          </SimpleGrid>
        </section>

        <section aria-labelledby="files-title">
          <Title order={2} size="h4" id="files-title" mb="xs">
            {m.pay.run.files}
          </Title>
          {!r.files.length ? (
            <Text c="dimmed">{m.pay.run.noFiles}</Text>
          ) : (
            <Stack gap="xs" data-testid="run-files">
              {r.files.map((f) => (
                <Card key={f.kind} withBorder padding="sm">
                  <Stack gap={2}>
                    <Anchor href={f.url} download={f.fileName} data-kind={f.kind} fw={600}>
                      {m.pay.run.fileKind[f.kind]}
                    </Anchor>
                    <Text size="sm" c="dimmed" className="wrap-anywhere">
                      <Ltr>{f.fileName}</Ltr> · {fill(m.pay.run.fileLine, { count: number(f.count), size: bytes(f.size, locale) })}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {fill(m.pay.run.expires, { date: date(f.expiresAt, true) })}
                    </Text>
                  </Stack>
                </Card>
              ))}
            </Stack>
          )}
        </section>

        <section aria-labelledby="items-title">
          <Title order={2} size="h4" id="items-title" mb="xs">
            {m.pay.run.items}
          </Title>
          <Stack gap="xs" data-testid="run-items">
            {r.items.map((it) => (
              <Card key={it.paymentId} withBorder padding="sm" data-payment={it.paymentId}>
                <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
                  {payable(it) && <Checkbox mt={4} checked={picked.has(it.paymentId)} onChange={() => pick(it.paymentId)} aria-label={fill(m.pay.run.selectItem, { name: it.supplierName })} />}
                  <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
                    <Anchor component={Link} to={`/payments/${it.paymentId}`} fw={600} className="wrap-anywhere">
                      {it.supplierName}
                    </Anchor>
                    <Text size="sm">
                      {m.pay.run.itemFile[it.file]} · {payoutText(it.payoutMasked, m)}
                    </Text>
                    <Group gap={6}>
                      <StatusBadge status={it.paymentStatus as 'ready'} />
                    </Group>
                  </Stack>
                  <Text fw={700} style={{ flexShrink: 0 }}>
                    <Money agorot={it.totalAgorot} currency={it.currency} />
                  </Text>
                </Group>
              </Card>
            ))}
          </Stack>
        </section>

        {open && (
          <Group gap="xs" wrap="wrap">
            <Button onClick={() => setAsking('paid')} loading={markPaid.isPending}>
              {m.pay.run.markPaid}
            </Button>
            {chosen.length > 0 && (
              <Button variant="light" onClick={() => setAsking('some')} loading={markPaid.isPending}>
                {fill(m.pay.run.markPaidSome, { n: number(chosen.length) })}
              </Button>
            )}
            <Button color="red.9" variant="outline" onClick={() => setAsking('cancel')} loading={cancel.isPending}>
              {m.pay.run.cancel}
            </Button>
          </Group>
        )}
      </Stack>

      <ConfirmModal opened={asking === 'paid'} onClose={() => setAsking(null)} title={m.pay.run.markPaidTitle} body={m.pay.run.markPaidBody} textSize="sm" go={m.pay.run.markPaid} onGo={() => markPaid.mutate({ runId: r.id })} />
      <ConfirmModal
        opened={asking === 'some'}
        onClose={() => setAsking(null)}
        title={m.pay.run.markSomeTitle}
        body={fill(m.pay.run.markSomeBody, { n: number(chosen.length) })}
        textSize="sm"
        go={fill(m.pay.run.markPaidSome, { n: number(chosen.length) })}
        onGo={() => markPaid.mutate({ runId: r.id, paymentIds: chosen }, { onSuccess: () => setPicked(new Set()) })}
      />
      {/* red.9: white on Mantine's default red is 3.3:1, under WCAG AA's 4.5:1. */}
      <ConfirmModal opened={asking === 'cancel'} onClose={() => setAsking(null)} title={m.pay.run.cancelTitle} body={m.pay.run.cancelBody} textSize="sm" back={m.close} go={m.pay.run.cancel} goColor="red.9" onGo={() => cancel.mutate({ runId: r.id })} />
    </>
  );
}
