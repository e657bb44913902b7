import { useState } from 'react';
import { Link } from 'react-router';
import { Alert, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { call } from '../../api/client.ts';

/** Slack: what connecting does, its state (with reconnect), and the way to the member picker. */
export function ChatCard() {
  const { m, fill, date } = useI18n();
  const status = useApi('chatStatus', {});
  const disconnect = useApiMutation('chatDisconnect', ['chatStatus', 'chatListUsers']);
  const [starting, setStarting] = useState(false);
  const [err, setErr] = useState<unknown>(null);
  // The consent returns to this dashboard's /employees (the return page's "back" link).
  const connect = () => {
    setStarting(true);
    setErr(null);
    call('chatConnectStart', { origin: window.location.origin, returnView: 'employees' }).then(
      (r) => window.location.assign(r.url),
      (e) => (setErr(e), setStarting(false)),
    );
  };
  return (
    <Card withBorder mb="md" data-testid="chat-card">
      <Title order={2} size="h4" mb="xs">
        {m.employees.chat}
      </Title>
      {status.isPending ? (
        <ListSkeleton rows={1} />
      ) : status.isError ? (
        <ErrorAlert error={status.error} onRetry={() => void status.refetch()} />
      ) : status.data.connected && !status.data.needsReconnect ? (
        <Stack gap="xs">
          <Text>{fill(m.employees.chatConnected, { workspace: status.data.workspace ?? '', date: date(status.data.connectedAt) })}</Text>
          <Group gap="xs">
            <Button component={Link} to="/employees/import">
              {m.employees.importPick}
            </Button>
            <ActionButton op="chatDisconnect" label={m.employees.disconnect} onRun={() => disconnect.mutate({})} loading={disconnect.isPending} />
          </Group>
        </Stack>
      ) : (
        <Stack gap="xs">
          {status.data.needsReconnect ? (
            <Alert color="orange" title={m.employees.chatReconnect} role="status">
              {status.data.message}
            </Alert>
          ) : (
            <Text>{m.employees.chatNotConnected}</Text>
          )}
          <Text size="sm" c="dimmed">
            {m.employees.chatWhat}
          </Text>
          <Group>
            <Button onClick={connect} loading={starting}>
              {status.data.needsReconnect ? m.employees.reconnect : m.employees.connect}
            </Button>
          </Group>
        </Stack>
      )}
      {(err || disconnect.isError) && <ErrorAlert error={err ?? disconnect.error} />}
    </Card>
  );
}

export default function Employees() {
  const { m, fill, number } = useI18n();
  const list = useApi('employeesList', {});
  return (
    <>
      <PageTitle
        actions={
          <Button component={Link} to="/employees/new">
            {m.employees.new}
          </Button>
        }
      >
        {m.employees.title}
      </PageTitle>
      <ChatCard />
      {list.isPending ? (
        <ListSkeleton />
      ) : list.isError ? (
        <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
      ) : !list.data.items.length ? (
        <Empty
          title={m.employees.empty}
          body={m.employees.emptyBody}
          action={
            <Button component={Link} to="/employees/new">
              {m.employees.new}
            </Button>
          }
        />
      ) : (
        <Stack gap="xs" data-testid="employees-list">
          <Text size="sm" c="dimmed">
            {fill(m.employees.count, { n: number(list.data.total) })}
          </Text>
          {list.data.items.map((e) => (
            <Card key={e.id} withBorder padding="sm" radius="md" component={Link} to={`/employees/${e.id}`} className="row-link">
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Stack gap={2} style={{ minWidth: 0 }}>
                  <Text fw={600} className="wrap-anywhere">
                    {e.name}
                  </Text>
                  {e.title && (
                    <Text size="sm" c="dimmed" className="wrap-anywhere">
                      {e.title}
                    </Text>
                  )}
                  <Text size="sm" className="wrap-anywhere">
                    {[e.email, e.phone && <bdi key="p" dir="ltr">{e.phone}</bdi>].filter(Boolean).map((x, i) => (
                      <span key={i}>
                        {i > 0 && ' · '}
                        {x}
                      </span>
                    ))}
                  </Text>
                </Stack>
                <Stack gap={4} align="flex-end">
                  <Badge color={e.status === 'active' ? 'green' : 'gray'} variant="light" style={{ textTransform: 'none' }}>
                    {m.employees.statuses[e.status]}
                  </Badge>
                  <Badge color={e.source === 'chat' ? 'grape' : 'gray'} variant="outline" style={{ textTransform: 'none' }}>
                    {m.employees.sources[e.source]}
                  </Badge>
                </Stack>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
