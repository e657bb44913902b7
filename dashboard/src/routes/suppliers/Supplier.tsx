import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { Button, Card, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { InvoiceCard, PaymentCard } from '../../ui/cards.tsx';

const FIELDS = ['fullName', 'companyName', 'companyId', 'address', 'addressCity', 'addressZip', 'phone2', 'personalEmail', 'companyEmail', 'bankCode', 'bankBranch', 'bankAccount', 'bankBeneficiary', 'bitPhone', 'notes'] as const;
type Field = (typeof FIELDS)[number];

export default function Supplier() {
  const { key = '' } = useParams();
  const { m } = useI18n();
  const card = useApi('getSupplierContact', { supplierKey: key });
  const payments = useApi('paymentsList', { supplierKey: key, limit: 20 });
  const invoices = useApi('invoicesList', { supplierKey: key, limit: 20 });
  const save = useApiMutation('saveSupplierContact', ['getSupplierContact']);
  const [f, setF] = useState<Record<Field, string> | null>(null);
  useEffect(() => {
    if (card.data) setF(Object.fromEntries(FIELDS.map((k) => [k, card.data[k] ?? ''])) as Record<Field, string>);
  }, [card.data]);
  if (card.isPending || !f) return card.isError ? <ErrorAlert error={card.error} onRetry={() => void card.refetch()} /> : <ListSkeleton />;
  const c = card.data!;
  return (
    <>
      <PageTitle>{c.name}</PageTitle>
      <Stack gap="lg">
        <Card withBorder>
          <Title order={2} size="h4" mb="xs">
            {m.suppliers.card}
          </Title>
          <Text size="sm" dir="ltr" mb="sm">
            {[c.phone, c.email].filter(Boolean).join(' · ')}
          </Text>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              save.mutate({ supplierKey: key, ...f });
            }}
          >
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {FIELDS.filter((k) => k !== 'notes').map((k) => (
                <TextInput key={k} label={m.suppliers.fields[k]} value={f[k]} onChange={(e) => setF({ ...f, [k]: e.currentTarget.value })} />
              ))}
            </SimpleGrid>
            <Textarea label={m.suppliers.fields.notes} value={f.notes} onChange={(e) => setF({ ...f, notes: e.currentTarget.value })} mt="sm" autosize minRows={2} />
            {save.isError && <ErrorAlert error={save.error} />}
            <Button type="submit" mt="sm" loading={save.isPending}>
              {save.isSuccess ? m.saved : m.save}
            </Button>
          </form>
        </Card>
        {c.supplierSide && (
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              {m.suppliers.supplierSide}
            </Title>
            <Text dir="auto">{c.supplierSide.method === 'bank' ? `${c.supplierSide.bankCode}-${c.supplierSide.bankBranch}-${c.supplierSide.bankAccount} · ${c.supplierSide.bankBeneficiary}` : c.supplierSide.bitPhone}</Text>
          </Card>
        )}
        <section>
          <Title order={2} size="h4" mb="xs">
            {m.nav.payments}
          </Title>
          {payments.isPending ? <ListSkeleton rows={2} /> : payments.isError ? <ErrorAlert error={payments.error} /> : <Stack gap="xs">{payments.data.items.length ? payments.data.items.map((p) => <PaymentCard key={p.id} p={p} />) : <Text c="dimmed">—</Text>}</Stack>}
        </section>
        <section>
          <Title order={2} size="h4" mb="xs">
            {m.nav.invoices}
          </Title>
          {invoices.isPending ? <ListSkeleton rows={2} /> : invoices.isError ? <ErrorAlert error={invoices.error} /> : <Stack gap="xs">{invoices.data.items.length ? invoices.data.items.map((d) => <InvoiceCard key={d.docId} d={d} />) : <Text c="dimmed">—</Text>}</Stack>}
        </section>
      </Stack>
    </>
  );
}
