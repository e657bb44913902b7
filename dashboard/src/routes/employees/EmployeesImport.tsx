import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Alert, Badge, Button, Card, Checkbox, Group, Stack, Text } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';

/** The Slack members, already imported ones marked; the ticked ones are imported as employees. */
export default function EmployeesImport() {
  const { m, fill, number } = useI18n();
  const status = useApi('chatStatus', {});
  const connected = Boolean(status.data?.connected && !status.data.needsReconnect);
  const members = useApi('chatListUsers', {}, { enabled: connected });
  const importUsers = useApiMutation('chatImportUsers', ['employeesList', 'chatListUsers']);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const notImported = useMemo(() => (members.data?.items ?? []).filter((u) => !u.imported).map((u) => u.chatUserId), [members.data]);
  const toggle = (id: string, on: boolean) =>
    setPicked((p) => {
      const next = new Set(p);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const title = <PageTitle actions={<Button component={Link} to="/employees" variant="default">{m.back}</Button>}>{m.employees.importTitle}</PageTitle>;
  if (status.isPending) return (<>{title}<ListSkeleton /></>);
  if (status.isError) return (<>{title}<ErrorAlert error={status.error} onRetry={() => void status.refetch()} /></>);
  if (!connected)
    return (
      <>
        {title}
        <Empty title={m.employees.notConnectedImport} action={<Button component={Link} to="/employees">{m.employees.title}</Button>} />
      </>
    );
  return (
    <>
      {title}
      <Text mb="sm">{m.employees.importHint}</Text>
      {importUsers.isSuccess && (
        <Alert color="green" mb="sm" role="status" title={fill(m.employees.importDone, { created: importUsers.data.created, updated: importUsers.data.updated })}>
          <Button component={Link} to="/employees" size="xs" variant="light" color="green">
            {m.employees.title}
          </Button>
        </Alert>
      )}
      {importUsers.isError && <ErrorAlert error={importUsers.error} />}
      {members.isPending ? (
        <ListSkeleton />
      ) : members.isError ? (
        <ErrorAlert error={members.error} onRetry={() => void members.refetch()} />
      ) : !members.data.items.length ? (
        <Empty title={m.employees.membersEmpty} />
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            importUsers.mutate({ ids: [...picked] }, { onSuccess: () => setPicked(new Set()) });
          }}
        >
          <Group mb="sm" justify="space-between">
            <Text size="sm" c="dimmed">
              {members.data.workspace}
            </Text>
            <Button variant="subtle" size="compact-sm" disabled={!notImported.length} onClick={() => setPicked(new Set(notImported))}>
              {m.employees.selectAll}
            </Button>
          </Group>
          {members.data.truncated && (
            <Text size="sm" c="orange.9" mb="xs">
              {fill(m.employees.truncated, { n: number(members.data.items.length) })}
            </Text>
          )}
          <Stack gap={6} data-testid="chat-members">
            {members.data.items.map((u) => (
              <Card key={u.chatUserId} withBorder padding="xs" data-imported={u.imported}>
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <Checkbox
                    checked={u.imported || picked.has(u.chatUserId)}
                    disabled={u.imported}
                    onChange={(e) => toggle(u.chatUserId, e.currentTarget.checked)}
                    label={u.name}
                    description={[u.title, u.email].filter(Boolean).join(' · ') || undefined}
                    styles={{ label: { overflowWrap: 'anywhere' }, description: { overflowWrap: 'anywhere' } }}
                  />
                  {u.imported && (
                    <Badge color="green" variant="light" style={{ textTransform: 'none', flexShrink: 0 }}>
                      {m.employees.imported}
                    </Badge>
                  )}
                </Group>
              </Card>
            ))}
          </Stack>
          <Group mt="md">
            <Button type="submit" disabled={!picked.size} loading={importUsers.isPending}>
              {fill(m.employees.importN, { n: picked.size })}
            </Button>
          </Group>
        </form>
      )}
    </>
  );
}
