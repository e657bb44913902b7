import { Link } from 'react-router';
import { Badge, Card, Group, Stack, Text } from '@mantine/core';
import { useI18n } from '../i18n/i18n.tsx';
import { Money } from '../ui/common.tsx';
import type { Output } from '../api/client.ts';

export type PaymentRow = Output<'paymentsList'>['items'][number];
export type InvoiceRow = Output<'invoicesList'>['items'][number];

const STATUS_COLOR: Record<string, string> = { sent: 'gray', awaiting_invoice: 'yellow', ready: 'green', paid: 'blue', canceled: 'dark' };

export function StatusBadge({ status }: { status: PaymentRow['status'] }) {
  const { m } = useI18n();
  return (
    <Badge color={STATUS_COLOR[status]} variant="light" style={{ textTransform: 'none' }}>
      {m.status[status]}
    </Badge>
  );
}

/** One payment as a card: the list is cards at every width (no table to scroll sideways at 360 px). */
export function PaymentCard({ p }: { p: PaymentRow }) {
  const { m, date } = useI18n();
  return (
    <Card withBorder padding="sm" radius="md" component={Link} to={`/payments/${p.id}`} className="row-link" style={p.payoutChanged ? { borderColor: 'var(--mantine-color-red-7)', borderWidth: 2 } : undefined}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Text fw={600} className="wrap-anywhere">
            {p.supplierName}
          </Text>
          <Text size="sm" c="dimmed" lineClamp={1}>
            {p.description}
          </Text>
          <Group gap={6}>
            <StatusBadge status={p.status} />
            {p.payoutChanged && (
              <Badge color="red" variant="filled" style={{ textTransform: 'none' }}>
                {m.payments.flagged}
              </Badge>
            )}
            {p.needsReview && (
              <Badge color="orange" variant="light" style={{ textTransform: 'none' }}>
                {m.payments.needsReview}
              </Badge>
            )}
          </Group>
        </Stack>
        <Stack gap={2} align="flex-end">
          <Text fw={700}>{p.openAmount && p.amountAgorot === 0 ? '—' : <Money agorot={p.totalAgorot} currency={p.currency} />}</Text>
          <Text size="xs" c="dimmed">
            {date(p.createdAt)}
          </Text>
        </Stack>
      </Group>
    </Card>
  );
}

export function InvoiceCard({ d }: { d: InvoiceRow }) {
  const { m, date } = useI18n();
  return (
    <Card withBorder padding="sm" radius="md" component={Link} to={`/invoices/${d.docId}`} className="row-link">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Text fw={600} className="wrap-anywhere">
            {d.issuerName || d.supplierName || d.fileName}
          </Text>
          <Text size="sm" c="dimmed" className="wrap-anywhere" lineClamp={1}>
            {d.fileName}
          </Text>
          <Group gap={6}>
            <Badge variant="light" color={d.readingStatus === 'read' ? 'green' : d.readingStatus === 'failed' ? 'red' : 'gray'} style={{ textTransform: 'none' }}>
              {m.invoices.reading[d.readingStatus]}
            </Badge>
            {d.duplicateOf && (
              <Badge variant="filled" color="orange" style={{ textTransform: 'none' }}>
                {m.invoices.duplicateOf}
              </Badge>
            )}
            {!d.supplierKey && (
              <Badge variant="light" color="gray" style={{ textTransform: 'none' }}>
                {m.invoices.noSupplier}
              </Badge>
            )}
          </Group>
        </Stack>
        <Stack gap={2} align="flex-end">
          <Text fw={700}>{d.totalMinor !== null && d.currency ? <Money agorot={d.totalMinor} currency={d.currency} /> : '—'}</Text>
          <Text size="xs" c="dimmed">
            {date(d.date || d.createdAt)}
          </Text>
        </Stack>
      </Group>
    </Card>
  );
}
