import { useState } from 'react';
import { Link } from 'react-router';
import { Alert, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { Empty, ErrorAlert, ListSkeleton, Money, PageTitle } from '../../ui/common.tsx';
import { InvoiceCard, PaymentCard } from '../../ui/cards.tsx';
import { dayText } from '../payruns/runParts.tsx';

/** What is due this week (paymentsList due: week), the overdue first, each with its due day, and the way to /pay. */
function DueThisWeek() {
  const { m, fill, date, number } = useI18n();
  const week = useApi('paymentsList', { due: 'week', limit: 20 }, { refetchInterval: 15_000 });
  const overdue = useApi('paymentsList', { due: 'overdue', limit: 20 }, { refetchInterval: 15_000 });
  const items = [...(overdue.data?.items ?? []), ...(week.data?.items ?? [])];
  if (!items.length) return null;
  const total = (overdue.data?.total ?? 0) + (week.data?.total ?? 0);
  return (
    <section aria-labelledby="due-week" data-testid="due-week">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} size="h4" id="due-week">
          {m.pay.homeWeek} ({number(total)})
        </Title>
        <Button component={Link} to="/pay" variant="light" size="xs">
          {m.pay.homeToPay}
        </Button>
      </Group>
      <Stack gap="xs">
        {items.map((p) => {
          const late = overdue.data?.items.includes(p);
          return (
            <div key={p.id}>
              <PaymentCard p={p} />
              {p.dueDate && (
                <Text size="xs" c={late ? 'red.9' : 'dimmed'} fw={late ? 600 : undefined} mt={2}>
                  {fill(late ? m.pay.overdue : m.pay.dueDateLine, { date: dayText(date, p.dueDate) })}
                </Text>
              )}
            </div>
          );
        })}
      </Stack>
    </section>
  );
}

/** What a message was for, by the operation that sent it (attention's failedMessages[].message.reason). */
function messageAbout(reason: string): 'link' | 'paid' | 'invite' | 'package' | 'other' {
  if (reason === 'createPayment' || reason === 'resendPayment') return 'link';
  if (reason === 'markPaid') return 'paid';
  if (reason === 'inviteMember' || reason === 'resendInvite') return 'invite';
  if (reason === 'statementsSend' || reason === 'automationStatements' || reason === 'accZipSend') return 'package';
  return 'other';
}

/** The screen that sends such a message again (a supplier link is sent again right on the card). */
function sendAgainAt(reason: string): string | null {
  const about = messageAbout(reason);
  if (about === 'invite') return '/settings/team';
  if (about === 'package') return reason === 'accZipSend' ? '/accountant' : '/statements';
  return null;
}

/** What needs the owner, in one API call (attention); refreshed every few seconds and on focus. */
export default function Home() {
  const { m, fill, date } = useI18n();
  const q = useApi('attention', {}, { refetchInterval: 4000, staleTime: 0 });
  // A supplier link that was not sent can be sent again from here (the rows it was resent for say so).
  const resend = useApiMutation('resendPayment', ['attention', 'paymentGet', 'paymentsList', 'listActivity']);
  const [resent, setResent] = useState<string[]>([]);
  const newButton = (
    <Button component={Link} to="/payments/new">
      {m.home.newPayment}
    </Button>
  );
  if (q.isPending)
    return (
      <>
        <PageTitle actions={newButton}>{m.home.title}</PageTitle>
        <ListSkeleton rows={4} />
      </>
    );
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} />;
  const a = q.data;
  // Ready and flagged payments whose invoice reading disagrees with them (their cards say which).
  const mismatched = new Set([...a.ready.items, ...a.flagged].filter((p) => p.readingMismatch).map((p) => p.id)).size;
  const nothing = !a.ready.count && !a.flagged.length && !a.invoices.items.length && !a.failedMessages.length;
  return (
    <>
      <PageTitle actions={newButton}>{m.home.title}</PageTitle>
      <Stack gap="lg">
        {a.flagged.filter((p) => p.payoutChanged).length > 0 && (
          <Alert color="red" variant="filled" title={m.home.flaggedTitle} role="alert">
            <Text size="sm" mb="sm">
              {m.home.flaggedBody}
            </Text>
          </Alert>
        )}
        {mismatched > 0 && (
          <Alert color="orange" role="status" data-testid="reading-mismatch">
            {fill(m.home.mismatch, { n: mismatched })}
          </Alert>
        )}
        {a.flagged.length > 0 && (
          <section aria-labelledby="flagged">
            <Title order={2} size="h4" id="flagged" mb="xs" c="red.9">
              {m.home.reviewTitle}
            </Title>
            <Stack gap="xs">
              {a.flagged.map((p) => (
                <PaymentCard key={p.id} p={p} />
              ))}
            </Stack>
          </section>
        )}
        <DueThisWeek />
        {a.ready.count > 0 && (
          <section aria-labelledby="ready" data-testid="ready">
            <Group justify="space-between" mb="xs">
              <Title order={2} size="h4" id="ready">
                {m.home.readyTitle} ({a.ready.count})
              </Title>
            </Group>
            <SimpleGrid cols={{ base: 1, sm: 3 }} mb="sm">
              {a.ready.totals.map((t) => (
                <Card key={t.currency} withBorder padding="sm">
                  <Text size="sm" c="dimmed">
                    {m.home.readyTotal}
                  </Text>
                  <Text fw={700} size="xl">
                    <Money agorot={t.amountAgorot} currency={t.currency} />
                  </Text>
                </Card>
              ))}
            </SimpleGrid>
            {!a.ready.totalsComplete && (
              <Text size="sm" c="dimmed" mb="xs">
                {m.home.totalsPartial}
              </Text>
            )}
            <Stack gap="xs">
              {a.ready.items.slice(0, 20).map((p) => (
                <PaymentCard key={p.id} p={p} />
              ))}
            </Stack>
          </section>
        )}
        {a.invoices.items.length > 0 && (
          <section aria-labelledby="inv">
            <Title order={2} size="h4" id="inv" mb="xs">
              {m.home.invoicesTitle}
            </Title>
            <Group gap="md" mb="xs">
              <Text size="sm">{fill(m.home.unread, { n: a.invoices.unread })}</Text>
              <Text size="sm">{fill(m.home.duplicates, { n: a.invoices.duplicates })}</Text>
              <Text size="sm">{fill(m.home.noSupplier, { n: a.invoices.noSupplier })}</Text>
            </Group>
            <Stack gap="xs">
              {a.invoices.items.slice(0, 10).map((d) => (
                <InvoiceCard key={d.docId} d={d} />
              ))}
            </Stack>
          </section>
        )}
        {a.failedMessages.length > 0 && (
          <section aria-labelledby="failed">
            <Title order={2} size="h4" id="failed" mb="xs">
              {m.home.failedTitle}
            </Title>
            <Stack gap="xs">
              {a.failedMessages.map((f) => (
                <Card key={f.id} withBorder padding="sm">
                  <Text size="sm" className="wrap-anywhere">
                    {f.message ? fill(m.home[f.message.status === 'failed' ? 'failedRefused' : 'failedUndelivered'], { about: m.home.failedAbout[messageAbout(f.message.reason)], channel: m.home.failedChannel[f.message.channel], to: f.message.to }) : f.summary}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {date(f.at, true)}
                  </Text>
                  {f.resend && (
                    <Group gap="xs" mt="xs">
                      {resent.includes(f.id) ? (
                        <Text size="sm" c="green.9" role="status">
                          {m.home.sentAgain}
                        </Text>
                      ) : (
                        <ActionButton
                          op="resendPayment"
                          label={`${m.payment.resend} ${f.resend.channel === 'wa' ? m.payment.resendWa : m.payment.resendEm}`}
                          loading={resend.isPending && resend.variables?.paymentId === f.resend.paymentId}
                          onRun={() => resend.mutate({ paymentId: f.resend!.paymentId, channel: f.resend!.channel }, { onSuccess: () => setResent((r) => [...r, f.id]) })}
                        />
                      )}
                      <Button component={Link} to={`/payments/${f.resend.paymentId}`} variant="subtle" size="sm">
                        {m.open}
                      </Button>
                    </Group>
                  )}
                  {!f.resend && f.message && f.message.status !== 'delivered' && sendAgainAt(f.message.reason) && (
                    <Button component={Link} to={sendAgainAt(f.message.reason)!} variant="light" size="xs" mt="xs">
                      {m.home.sendAgainThere}
                    </Button>
                  )}
                  {resend.isError && resend.variables?.paymentId === f.resend?.paymentId && <ErrorAlert error={resend.error} />}
                </Card>
              ))}
            </Stack>
          </section>
        )}
        {nothing && <Empty title={m.home.allClear} body={m.home.allClearBody} />}
      </Stack>
    </>
  );
}
