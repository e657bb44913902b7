import { Link } from 'react-router';
import { Badge, Card, Group, Stack, Text } from '@mantine/core';
import { useI18n } from '../i18n/i18n.tsx';
import { Money } from './common.tsx';
import type { Output } from '../api/client.ts';
import { FileName } from './FileName.tsx';

export type PaymentRow = Output<'paymentsList'>['items'][number];
export type InvoiceRow = Output<'invoicesList'>['items'][number];

const STATUS_COLOR: Record<string, string> = { sent: 'gray', awaiting_invoice: 'yellow', ready: 'green', paid: 'blue', canceled: 'dark' };

/** A link-only request was never sent: it reads "link created" until the supplier acts. */
function useStatusText() {
  const { m } = useI18n();
  return (status: PaymentRow['status'], channel?: PaymentRow['channel']) => (status === 'sent' && channel === 'link' ? m.payment.linkCreated : m.status[status]);
}

export function StatusBadge({ status, channel }: { status: PaymentRow['status']; channel?: PaymentRow['channel'] }) {
  const statusText = useStatusText();
  return (
    <Badge color={STATUS_COLOR[status]} variant="light" style={{ textTransform: 'none' }}>
      {statusText(status, channel)}
    </Badge>
  );
}

/**
 * One payment as a card: the list is cards at every width (no table to scroll sideways at 360 px). Plain
 * elements styled by app.css (`.pay-card`), not Mantine's layout components: a page of 50 rows renders in a
 * fraction of the time (each Mantine component resolves its theme and sets its own CSS variables).
 */
export function PaymentCard({ p }: { p: PaymentRow }) {
  const { m, date } = useI18n();
  const statusText = useStatusText();
  return (
    <Link to={`/payments/${p.id}`} className="pay-card" data-flagged={p.payoutChanged || undefined}>
      <span className="pay-card-main">
        <span className="pay-card-name wrap-anywhere">{p.supplierName}</span>
        <span className="pay-card-desc">{p.description}</span>
        <span className="pay-card-tags">
          <span className="tag" data-color={STATUS_COLOR[p.status]}>
            {statusText(p.status, p.channel)}
          </span>
          {p.payoutChanged && (
            <span className="tag" data-color="red" data-filled="">
              {m.payments.flagged}
            </span>
          )}
          {p.needsReview && (
            <span className="tag" data-color="orange">
              {m.payments.needsReview}
            </span>
          )}
          {p.readingMismatch && (
            <span className="tag" data-color="orange">
              {m.payments.readingMismatch}
            </span>
          )}
        </span>
      </span>
      <span className="pay-card-side">
        <span className="pay-card-amount">{p.openAmount && p.amountAgorot === 0 ? '—' : <Money agorot={p.totalAgorot} currency={p.currency} />}</span>
        <span className="pay-card-date">{date(p.createdAt)}</span>
      </span>
    </Link>
  );
}

export function InvoiceCard({ d }: { d: InvoiceRow }) {
  const { m, date } = useI18n();
  return (
    <Card withBorder padding="sm" radius="md" component={Link} to={`/invoices/${d.docId}`} className="row-link">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Text fw={600} className="wrap-anywhere">
            {d.issuerName || d.supplierName || <FileName name={d.fileName} />}
          </Text>
          <Text size="sm" c="dimmed" className="wrap-anywhere" lineClamp={1}>
            <FileName name={d.fileName} />
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
            {d.readingMismatch && (
              <Badge variant="light" color="orange" style={{ textTransform: 'none' }}>
                {m.payments.readingMismatch}
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
