import { useInfiniteQuery } from '@tanstack/react-query';
import { Button, Card, Group, Stack, Text } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { call } from '../../api/client.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';

/** The log, newest first; "load more" continues right after the last row shown (its cursor). */
export default function Activity() {
  const { m, fill, date } = useI18n();
  const q = useInfiniteQuery({
    queryKey: ['listActivity', 'infinite'],
    queryFn: ({ pageParam }) => call('listActivity', pageParam ? { cursor: pageParam } : {}),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const rows = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageTitle>{m.activity.title}</PageTitle>
      {q.isPending ? <ListSkeleton /> : q.isError ? <ErrorAlert error={q.error} onRetry={() => void q.refetch()} /> : !rows.length ? <Empty title={m.activity.empty} /> : (
        <Stack gap="xs">
          {rows.map((a) => (
            <Card key={a.id} withBorder padding="sm">
              <Text size="sm" className="wrap-anywhere">
                {a.summary}
              </Text>
              <Group gap="xs">
                <Text size="xs" c="dimmed">
                  {date(a.at, true)} · {fill(m.activity.by, { who: a.actorEmail || a.keyName, op: a.operation })}
                </Text>
              </Group>
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
