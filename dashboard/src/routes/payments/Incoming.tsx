import { Card, Group, Stack, Text } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, Money, PageTitle } from '../../ui/common.tsx';
import { StatusBadge } from '../../ui/cards.tsx';

export default function Incoming() {
  const { m, fill, date } = useI18n();
  const q = useApi('listIncomingPayments', {});
  return (
    <>
      <PageTitle>{m.payments.incoming}</PageTitle>
      {q.isPending ? (
        <ListSkeleton />
      ) : q.isError ? (
        <ErrorAlert error={q.error} onRetry={() => void q.refetch()} />
      ) : !q.data.items.length ? (
        <Empty title={m.payments.incomingEmpty} />
      ) : (
        <Stack gap="xs">
          {q.data.items.map((p) => (
            <Card key={p.paymentId} withBorder padding="sm" component="a" href={p.link} className="row-link">
              <Group justify="space-between" wrap="nowrap">
                <Stack gap={2}>
                  <Text fw={600}>{fill(m.payments.from, { name: p.businessName })}</Text>
                  <StatusBadge status={p.status} />
                </Stack>
                <Stack gap={2} align="flex-end">
                  <Text fw={700}>
                    <Money agorot={p.amountAgorot} currency={p.currency} />
                  </Text>
                  <Text size="xs" c="dimmed">
                    {date(p.createdAt)}
                  </Text>
                </Stack>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
