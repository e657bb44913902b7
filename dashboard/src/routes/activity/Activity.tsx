import { useInfiniteQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { Button, Card, Group, Select, Stack, Text } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { call } from '../../api/client.ts';
import { useApi } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActivityText } from '../../ui/TemplateText.tsx';
import { activityUiHe } from '../../i18n/activity.he.ts';
import { activityUiEn } from '../../i18n/activity.en.ts';

const KINDS = ['payments', 'suppliers', 'invoices', 'folders', 'software', 'statements', 'mailboxes', 'employees', 'signupDocs', 'accountant', 'reports', 'team', 'account', 'messages'] as const;
type Kind = (typeof KINDS)[number];

/** The log, newest first, filtered by kind and person (in the URL); "load more" continues after the last row shown. */
export default function Activity() {
  const { m, lang, date } = useI18n();
  const ui = lang === 'he' ? activityUiHe : activityUiEn;
  const [params, setParams] = useSearchParams();
  const kind = (KINDS as readonly string[]).includes(params.get('kind') ?? '') ? (params.get('kind') as Kind) : undefined;
  const actor = params.get('actor') || undefined;
  const set = (k: string, v: string | null) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (v) next.set(k, v);
      else next.delete(k);
      return next;
    });
  const team = useApi('listTeam', {});
  const filter = { ...(kind ? { kind } : {}), ...(actor ? { actor } : {}) };
  const q = useInfiniteQuery({
    queryKey: ['listActivity', 'infinite', filter],
    queryFn: ({ pageParam }) => call('listActivity', { ...filter, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const rows = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageTitle>{m.activity.title}</PageTitle>
      <Group mb="md" grow wrap="wrap" align="flex-end">
        <Select
          label={ui.kind}
          clearable
          data={KINDS.map((k) => ({ value: k, label: ui.kinds[k] ?? k }))}
          value={kind ?? null}
          onChange={(v) => set('kind', v)}
          placeholder={ui.allKinds}
        />
        <Select
          label={ui.person}
          clearable
          searchable
          data={(team.data?.members ?? []).map((mb) => ({ value: mb.userId, label: mb.email }))}
          value={actor ?? null}
          onChange={(v) => set('actor', v)}
          placeholder={ui.everyone}
        />
      </Group>
      {q.isPending ? <ListSkeleton /> : q.isError ? <ErrorAlert error={q.error} onRetry={() => void q.refetch()} /> : !rows.length ? <Empty title={kind || actor ? ui.emptyFiltered : m.activity.empty} /> : (
        <Stack gap="xs">
          {rows.map((a) => (
            <Card key={a.id} withBorder padding="sm" data-testid="activity-row">
              <Text size="sm" className="wrap-anywhere">
                <ActivityText action={a.action} params={a.params} summary={a.summary} />
              </Text>
              <Text size="xs" c="dimmed">
                {date(a.at, true)} · <bdi>{a.actorEmail || (Object.hasOwn(ui.actors, a.keyName) ? ui.actors[a.keyName] : a.keyName)}</bdi>
              </Text>
            </Card>
          ))}
          {q.hasNextPage && (
            <Button variant="default" onClick={() => void q.fetchNextPage()} loading={q.isFetchingNextPage}>
              {m.loadMore}
            </Button>
          )}
        </Stack>
      )}
    </>
  );
}
