import { Badge, Card, Group, Select, Stack, Text } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { InvoicesNav } from '../invoices/invoicesNav.tsx';
import { Button } from '@mantine/core';

export default function Software() {
  const { m, fill } = useI18n();
  const list = useApi('softwareList', {});
  const update = useApiMutation('softwareUpdate', ['softwareList']);
  return (
    <>
      <PageTitle>{m.invoices.title}</PageTitle>
      <InvoicesNav />
      {update.isError && <ErrorAlert error={update.error} />}
      {list.isPending ? <ListSkeleton /> : list.isError ? <ErrorAlert error={list.error} onRetry={() => void list.refetch()} /> : !list.data.items.length ? <Empty title={m.software.empty} /> : (
        <Stack gap="xs">
          {list.data.items.map((s) => (
            <Card key={s.id} withBorder padding="sm">
              <Group justify="space-between" wrap="wrap">
                <Stack gap={2}>
                  <Text fw={600}>{s.name}</Text>
                  <Text size="xs">{fill(m.suppliers.docs, { n: s.docCount })}</Text>
                </Stack>
                <Group gap="xs">
                  {s.hidden && <Badge color="gray" style={{ textTransform: 'none' }}>{m.software.hidden}</Badge>}
                  <Select aria-label={`${s.name}: cadence`} w={130} data={(['auto', 'monthly', 'yearly'] as const).map((c) => ({ value: c, label: m.software.cadence[c] }))} value={s.cadence} onChange={(v) => v && update.mutate({ id: s.id, cadence: v as 'auto' })} allowDeselect={false} />
                  <Button size="xs" variant="default" onClick={() => update.mutate({ id: s.id, hidden: !s.hidden })}>
                    {s.hidden ? m.software.show : m.software.hide}
                  </Button>
                </Group>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
