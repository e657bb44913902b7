import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { Button, Card, Group, Modal, Select, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { InvoiceCard, PaymentCard } from '../../ui/cards.tsx';

/** Typed left to right even in Hebrew: a phone's "+" stays before its digits, an address reads as written. */
const LTR_FIELDS = new Set<string>(['phone2', 'personalEmail', 'companyEmail', 'bitPhone']);
const FIELDS = ['fullName', 'companyName', 'companyId', 'address', 'addressCity', 'addressZip', 'phone2', 'personalEmail', 'companyEmail', 'bankCode', 'bankBranch', 'bankAccount', 'bankBeneficiary', 'bitPhone', 'notes'] as const;
type Field = (typeof FIELDS)[number];

export default function Supplier() {
  const { key = '' } = useParams();
  const { m } = useI18n();
  const card = useApi('getSupplierContact', { supplierKey: key });
  const navigate = useNavigate();
  // An old link to a merged supplier answers the card it became: show it under its own address.
  const mergedInto = card.data?.merged ? card.data.key : null;
  useEffect(() => {
    if (mergedInto) void navigate(`/suppliers/${encodeURIComponent(mergedInto)}`, { replace: true });
  }, [mergedInto, navigate]);
  const payments = useApi('paymentsList', { supplierKey: key, limit: 20 });
  const invoices = useApi('invoicesList', { supplierKey: key, limit: 20 });
  const save = useApiMutation('saveSupplierContact', ['getSupplierContact']);
  // Merging rewrites history (payments, invoices): admins only, as the API says.
  const business = useApi('getBusiness', {});
  const admin = business.data?.role === 'admin';
  const [merging, setMerging] = useState(false);
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
        <Group gap="xs">
          <Button component={Link} to={`/payments/new?supplier=${encodeURIComponent(c.key)}`}>
            {m.supplierTools.newPayment}
          </Button>
          {admin && (
            <Button variant="outline" color="red.9" onClick={() => setMerging(true)}>
              {m.supplierTools.mergeInto}
            </Button>
          )}
        </Group>
        {admin && <MergeInto from={c.key} name={c.name} opened={merging} onClose={() => setMerging(false)} />}
        <Card withBorder>
          <Title order={2} size="h4" mb="xs">
            {m.suppliers.card}
          </Title>
          <Text size="sm" dir="ltr" mb="sm" className="wrap-anywhere">
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
                <TextInput key={k} label={m.suppliers.fields[k]} value={f[k]} onChange={(e) => setF({ ...f, [k]: e.currentTarget.value })} dir={LTR_FIELDS.has(k) ? 'ltr' : undefined} />
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

/** Picks the supplier this one merges into; on success the page moves to it (this one no longer exists). */
function MergeInto({ from, name, opened, onClose }: { from: string; name: string; opened: boolean; onClose(): void }) {
  const { m, fill } = useI18n();
  const navigate = useNavigate();
  const list = useApi('suppliersList', {}, { enabled: opened });
  const qc = useQueryClient();
  const merge = useApiMutation('supplierMerge', ['suppliersList', 'paymentsList', 'invoicesList']);
  // The cards go stale without a refetch: this one is gone (a refetch would be a 404), the kept one reloads when shown.
  const done = (into: string) => {
    void qc.invalidateQueries({ queryKey: ['getSupplierContact'], refetchType: 'none' });
    onClose();
    void navigate(`/suppliers/${encodeURIComponent(into)}`);
  };
  const [into, setInto] = useState<string | null>(null);
  const others = (list.data?.items ?? []).filter((s) => s.key !== from).map((s) => ({ value: s.key, label: `${s.name} · \u2066${s.phone ?? s.email ?? ''}\u2069` })); // the contact isolated left-to-right inside Hebrew
  return (
    <Modal opened={opened} onClose={onClose} title={fill(m.supplierTools.mergeTitle, { name })} centered closeButtonProps={{ 'aria-label': m.close }}>
      <Stack>
        <Text size="sm">{fill(m.supplierTools.mergeBody, { name })}</Text>
        {list.isSuccess && !others.length ? (
          <Text c="dimmed">{m.supplierTools.mergeNone}</Text>
        ) : (
          <Select label={m.supplierTools.mergeTarget} data={others} value={into} onChange={setInto} searchable comboboxProps={{ withinPortal: true }} />
        )}
        {merge.isError && <ErrorAlert error={merge.error} />}
        <Group justify="flex-end">
          <Button
            color="red.9"
            disabled={!into}
            loading={merge.isPending}
            onClick={() => into && merge.mutate({ from, into }, { onSuccess: (r) => done(r.into) })}
          >
            {m.supplierTools.merge}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
