import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { Badge, Button, Card, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';

type Form = { name: string; email: string; phone: string; title: string; status: 'active' | 'inactive' };
const BLANK: Form = { name: '', email: '', phone: '', title: '', status: 'active' };

/** One employee, created or edited as a whole record (employeeUpdate replaces every field). */
export default function EmployeeEdit() {
  const { m } = useI18n();
  const { id } = useParams();
  const isNew = !id || id === 'new';
  const navigate = useNavigate();
  const list = useApi('employeesList', {}, { enabled: !isNew });
  const found = isNew ? undefined : list.data?.items.find((e) => e.id === id);
  const create = useApiMutation('employeeCreate', ['employeesList', 'chatListUsers']);
  const update = useApiMutation('employeeUpdate', ['employeesList', 'chatListUsers']);
  const remove = useApiMutation('employeeDelete', ['employeesList', 'chatListUsers']);
  const [f, setF] = useState<Form>(BLANK);
  useEffect(() => {
    if (found) setF({ name: found.name, email: found.email ?? '', phone: found.phone ?? '', title: found.title ?? '', status: found.status });
  }, [found]);
  const title = isNew ? m.employees.newTitle : m.employees.editTitle;
  if (!isNew && list.isPending)
    return (
      <>
        <PageTitle>{title}</PageTitle>
        <ListSkeleton rows={3} />
      </>
    );
  if (!isNew && list.isError) return <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />;
  if (!isNew && !found)
    return (
      <Empty
        title={m.employees.notFound}
        action={
          <Button component={Link} to="/employees">
            {m.back}
          </Button>
        }
      />
    );
  const failed = [create, update, remove].find((x) => x.isError);
  const text = (k: 'name' | 'email' | 'phone' | 'title', label: string, extra: Record<string, unknown> = {}) => (
    <TextInput label={label} value={f[k]} onChange={(e) => setF({ ...f, [k]: e.currentTarget.value })} {...extra} />
  );
  return (
    <>
      <PageTitle>{title}</PageTitle>
      <Card withBorder>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const body = { name: f.name.trim(), email: f.email.trim(), phone: f.phone.trim(), title: f.title.trim(), status: f.status };
            if (isNew) create.mutate(body, { onSuccess: () => navigate('/employees') });
            else update.mutate({ id: id!, ...body }, { onSuccess: () => navigate('/employees') });
          }}
        >
          <Stack>
            {found && (
              <Group gap="xs">
                <Badge variant="outline" color={found.source === 'chat' ? 'grape' : 'gray'} style={{ textTransform: 'none' }}>
                  {m.employees.sources[found.source]}
                </Badge>
              </Group>
            )}
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {text('name', m.employees.name, { required: true })}
              {text('title', m.employees.title_)}
              {text('email', m.employees.email, { type: 'email', dir: 'ltr' })}
              {text('phone', m.employees.phone, { type: 'tel', dir: 'ltr' })}
              <Select
                label={m.employees.status}
                data={(['active', 'inactive'] as const).map((s) => ({ value: s, label: m.employees.statuses[s] }))}
                value={f.status}
                onChange={(v) => setF({ ...f, status: (v ?? 'active') as Form['status'] })}
                allowDeselect={false}
              />
            </SimpleGrid>
            {!isNew && (
              <Text size="sm" c="dimmed">
                {m.employees.wholeRecord}
              </Text>
            )}
            {failed && <ErrorAlert error={failed.error} />}
            <Group justify="space-between">
              <Group gap="xs">
                <Button type="submit" loading={create.isPending || update.isPending} disabled={!f.name.trim()}>
                  {isNew ? m.create : m.save}
                </Button>
                <Button component={Link} to="/employees" variant="default">
                  {m.cancel}
                </Button>
              </Group>
              {!isNew && <ActionButton op="employeeDelete" label={`${m.delete} ${found!.name}`} onRun={() => remove.mutate({ id: id! }, { onSuccess: () => navigate('/employees') })} />}
            </Group>
          </Stack>
        </form>
      </Card>
    </>
  );
}
