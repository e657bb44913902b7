import { Link } from 'react-router';
import { Button, Group, Stack, Tabs, Text, Select } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle, Pager, SearchForm, useListParams } from '../../ui/common.tsx';
import { PaymentCard } from '../../ui/cards.tsx';

const TABS = ['all', 'sent', 'awaiting_invoice', 'ready', 'paid', 'canceled'] as const;
type Status = Exclude<(typeof TABS)[number], 'all'>;

/** The list: status tabs, search and supplier filter in the URL (so they survive reloads and links), page tokens. */
export default function Payments() {
  const { m, fill, number } = useI18n();
  const { params, set, tokens, setTokens, pageToken } = useListParams();
  const status = (params.get('status') ?? 'all') as (typeof TABS)[number];
  const q = params.get('q') ?? '';
  const supplierKey = params.get('supplier') ?? '';
  const input = { ...(status !== 'all' ? { status: status as Status } : {}), ...(q ? { q } : {}), ...(supplierKey ? { supplierKey } : {}), ...(pageToken ? { pageToken } : {}), limit: 50 };
  const list = useApi('paymentsList', input, { placeholderData: (prev) => prev });
  const suppliers = useApi('suppliersList', {});
  return (
    <>
      <PageTitle
        actions={
          <Group gap="xs">
            <Button component={Link} to="/payments/incoming" variant="default">
              {m.payments.incoming}
            </Button>
            <Button component={Link} to="/payments/new">
              {m.payments.new}
            </Button>
          </Group>
        }
      >
        {m.payments.title}
      </PageTitle>
      <Tabs value={status} onChange={(v) => set('status', v === 'all' || !v ? '' : v)} mb="sm">
        <Tabs.List style={{ flexWrap: 'wrap' }}>
          {TABS.map((t) => (
            <Tabs.Tab key={t} value={t}>
              {t === 'all' ? m.all : m.status[t]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Group mb="md" grow wrap="wrap" align="flex-end">
        <SearchForm initial={q} onSearch={(v) => set('q', v)} placeholder={m.payments.searchPlaceholder} />
        <Select
          label={m.payments.supplierFilter}
          clearable
          searchable
          data={(suppliers.data?.items ?? []).map((s) => ({ value: s.key, label: s.name }))}
          value={supplierKey || null}
          onChange={(v) => set('supplier', v ?? '')}
          placeholder={m.all}
        />
      </Group>
      {list.isPending ? (
        <ListSkeleton />
      ) : list.isError ? (
        <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        status === 'all' && !q && !supplierKey ? (
          <Empty
            title={m.payments.emptyTitle}
            body={m.payments.emptyBody}
            action={
              <Button component={Link} to="/payments/new">
                {m.payments.new}
              </Button>
            }
          />
        ) : (
          <Empty title={m.payments.emptyFiltered} />
        )
      ) : (
        <Stack gap="xs" data-testid="payments-list">
          <Text size="sm" c="dimmed">
            {fill(m.payments.count, { n: (list.data.totalIsEstimate ? '~' : '') + number(list.data.total) })}
          </Text>
          {list.data.items.map((p) => (
            <PaymentCard key={p.id} p={p} />
          ))}
          <Pager tokens={tokens} setTokens={setTokens} next={list.data.nextPageToken} />
        </Stack>
      )}
    </>
  );
}
