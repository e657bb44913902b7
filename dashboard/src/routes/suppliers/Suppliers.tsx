import { useState } from 'react';
import { Link } from 'react-router';
import { Badge, Button, Card, Group, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { Ltr } from '../../ui/Ltr.tsx';

export default function Suppliers() {
  const { m, fill } = useI18n();
  const list = useApi('suppliersList', {});
  const sugg = useApi('supplierSuggestionsList', {});
  const add = useApiMutation('createSupplier', ['suppliersList']);
  const createS = useApiMutation('supplierSuggestionsCreate', ['suppliersList', 'supplierSuggestionsList']);
  const dismiss = useApiMutation('supplierSuggestionsDismiss', ['supplierSuggestionsList']);
  const toSoftware = useApiMutation('supplierSuggestionToSoftware', ['supplierSuggestionsList', 'softwareList']);
  const [f, setF] = useState({ name: '', phone: '', email: '', kind: 'supplier' as 'supplier' | 'freelancer' });
  const [adding, setAdding] = useState(false);
  const failed = [add, createS, dismiss, toSoftware].find((x) => x.isError);
  const open = (sugg.data?.items ?? []).filter((s) => s.status === 'open');
  return (
    <>
      <PageTitle actions={<Button onClick={() => setAdding((a) => !a)}>{m.suppliers.add}</Button>}>{m.suppliers.title}</PageTitle>
      {failed && <ErrorAlert error={failed.error} />}
      {adding && (
        <Card withBorder mb="md">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              add.mutate({ name: f.name.trim(), kind: f.kind, ...(f.phone.trim() ? { phone: f.phone.trim() } : {}), ...(f.email.trim() ? { email: f.email.trim() } : {}) }, { onSuccess: () => setAdding(false) });
            }}
          >
            <Stack>
              <TextInput label={m.suppliers.name} value={f.name} onChange={(e) => setF({ ...f, name: e.currentTarget.value })} required />
              <Group grow wrap="wrap">
                <TextInput label={m.suppliers.phone} dir="ltr" value={f.phone} onChange={(e) => setF({ ...f, phone: e.currentTarget.value })} />
                <TextInput label={m.suppliers.email} dir="ltr" value={f.email} onChange={(e) => setF({ ...f, email: e.currentTarget.value })} />
              </Group>
              <SegmentedControl aria-label={m.suppliers.kind} value={f.kind} onChange={(v) => setF({ ...f, kind: v as 'supplier' })} data={[{ value: 'supplier', label: m.suppliers.kinds.supplier }, { value: 'freelancer', label: m.suppliers.kinds.freelancer }]} />
              <Button type="submit" loading={add.isPending}>
                {m.create}
              </Button>
            </Stack>
          </form>
        </Card>
      )}
      {list.isPending ? (
        <ListSkeleton />
      ) : list.isError ? (
        <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
      ) : !list.data.items.length ? (
        <Empty title={m.suppliers.empty} />
      ) : (
        <Stack gap="xs">
          {list.data.items.map((s) => (
            <Card key={s.key} withBorder padding="sm" component={Link} to={`/suppliers/${encodeURIComponent(s.key)}`} className="row-link">
              <Group justify="space-between" wrap="nowrap">
                <Stack gap={2} style={{ minWidth: 0 }}>
                  <Text fw={600} className="wrap-anywhere">
                    {s.name}
                  </Text>
                  <Text size="sm" c="dimmed" className="wrap-anywhere">
                    <Ltr>{s.phone ?? s.email ?? ''}</Ltr>
                  </Text>
                </Stack>
                <Stack gap={2} align="flex-end">
                  <Badge variant="light" style={{ textTransform: 'none' }}>
                    {m.suppliers.kinds[s.kind]}
                  </Badge>
                  <Text size="xs">{fill(m.suppliers.payments, { n: s.paymentCount })}</Text>
                </Stack>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
      <Title order={2} size="h4" mt="xl" mb="xs">
        {m.suppliers.suggestions}
      </Title>
      {sugg.isPending ? (
        <ListSkeleton rows={2} />
      ) : sugg.isError ? (
        <ErrorAlert error={sugg.error} onRetry={() => void sugg.refetch()} />
      ) : !open.length ? (
        <Text c="dimmed">{m.suppliers.suggestionsEmpty}</Text>
      ) : (
        <Stack gap="xs">
          {open.map((s) => (
            <Card key={s.id} withBorder padding="sm">
              <Text fw={600}>{s.name}</Text>
              <Text size="sm" c="dimmed">
                {fill(m.suppliers.docs, { n: s.docCount })} {s.phone || s.email ? <>· <Ltr>{s.phone ?? s.email}</Ltr></> : ''}
              </Text>
              {!s.phone && !s.email && (
                <Text size="xs" c="dimmed">
                  {m.suppliers.needsContact}
                </Text>
              )}
              <Group gap="xs" mt="xs">
                <ActionButton op="supplierSuggestionsCreate" label={m.suppliers.createFromSuggestion} onRun={() => createS.mutate({ ids: [s.id] })} disabled={!s.phone && !s.email} />
                <ActionButton op="supplierSuggestionsDismiss" label={m.suppliers.dismiss} variant="default" onRun={() => dismiss.mutate({ ids: [s.id] })} />
                <ActionButton op="supplierSuggestionToSoftware" label={m.suppliers.toSoftware} variant="default" onRun={() => toSoftware.mutate({ id: s.id })} />
              </Group>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
