import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Alert, Anchor, Badge, Button, Card, Code, CopyButton, Group, Select, SimpleGrid, Stack, Switch, Tabs, Text, TextInput } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { call } from '../../api/client.ts';
import { fieldErrors } from '../../ui/fieldErrors.ts';
// The integrations tab lives in a module of its own (its forms grew past the rest of this screen).
import Integrations from './SettingsIntegrations.tsx';
import PaySettings from './SettingsPay.tsx';

const TABS = ['profile', 'link', 'apps', 'pay', 'integrations', 'notifications', 'api', 'team'] as const;
type Tab = (typeof TABS)[number];

function Profile() {
  const { m } = useI18n();
  const b = useApi('getBusiness', {});
  const save = useApiMutation('updateBusiness', ['getBusiness', 'myBusinesses']);
  const [f, setF] = useState({ name: '', businessName: '', companyId: '', street: '', city: '', zip: '', businessType: '' as '' | 'patur' | 'murshe' | 'company' });
  useEffect(() => {
    if (b.data) setF({ name: b.data.name, businessName: b.data.businessName, companyId: b.data.companyId, street: b.data.street, city: b.data.city, zip: b.data.zip, businessType: b.data.businessType });
  }, [b.data]);
  if (b.isPending) return <ListSkeleton rows={3} />;
  if (b.isError) return <ErrorAlert error={b.error} onRetry={() => void b.refetch()} />;
  const text = (k: 'name' | 'businessName' | 'companyId' | 'street' | 'city' | 'zip') => <TextInput label={m.settings[k]} value={f[k]} onChange={(e) => setF({ ...f, [k]: e.currentTarget.value })} />;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(f);
      }}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {text('name')}
        {text('businessName')}
        {text('companyId')}
        <Select label={m.settings.businessType} data={(['', 'patur', 'murshe', 'company'] as const).map((v) => ({ value: v, label: m.settings.businessTypes[v] }))} value={f.businessType} onChange={(v) => setF({ ...f, businessType: (v ?? '') as typeof f.businessType })} allowDeselect={false} />
        {text('street')}
        {text('city')}
        {text('zip')}
      </SimpleGrid>
      {save.isError && <ErrorAlert error={save.error} />}
      <Button type="submit" mt="md" loading={save.isPending}>
        {save.isSuccess ? m.saved : m.save}
      </Button>
    </form>
  );
}

function PublicLink() {
  const { m } = useI18n();
  const link = useApi('getMyPublicLink', {});
  const set = useApiMutation('setMyPublicLink', ['getMyPublicLink', 'getBusiness']);
  const [slug, setSlug] = useState('');
  const [check, setCheck] = useState<{ slug: string; available: boolean; mine: boolean } | null>(null);
  useEffect(() => {
    const s = slug.trim();
    if (!s) return setCheck(null);
    // The slug check runs as the user pauses typing.
    const t = setTimeout(() => void call('checkPublicSlug', { slug: s }).then(setCheck, () => setCheck(null)), 400);
    return () => clearTimeout(t);
  }, [slug]);
  if (link.isPending) return <ListSkeleton rows={2} />;
  if (link.isError) return <ErrorAlert error={link.error} onRetry={() => void link.refetch()} />;
  return (
    <Stack>
      {link.data.url ? (
        <Group gap="xs">
          <Text>{m.settings.publicLink}:</Text>
          <Anchor href={link.data.url} target="_blank" rel="noopener" className="wrap-anywhere">
            {link.data.url}
          </Anchor>
        </Group>
      ) : (
        <Text c="dimmed">{m.settings.noLink}</Text>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          set.mutate({ slug: slug.trim() });
        }}
      >
        <Group align="flex-end" wrap="wrap">
          <TextInput label={m.settings.slug} value={slug} onChange={(e) => setSlug(e.currentTarget.value)} dir="ltr" description={check && check.slug === slug.trim() ? (check.mine ? m.settings.slugMine : check.available ? m.settings.slugFree : m.settings.slugTaken) : undefined} />
          <Button type="submit" disabled={!slug.trim() || (check !== null && !check.available && !check.mine)} loading={set.isPending}>
            {m.save}
          </Button>
        </Group>
      </form>
      {set.isError && <ErrorAlert error={set.error} />}
    </Stack>
  );
}

function Apps() {
  const { m } = useI18n();
  const b = useApi('getBusiness', {});
  const set = useApiMutation('setBusinessApp', ['getBusiness']);
  if (b.isPending) return <ListSkeleton rows={3} />;
  if (b.isError) return <ErrorAlert error={b.error} onRetry={() => void b.refetch()} />;
  const admin = b.data.role === 'admin';
  return (
    <Stack>
      {!admin && <Text c="dimmed">{m.settings.adminOnly}</Text>}
      {set.isError && <ErrorAlert error={set.error} />}
      {(Object.keys(b.data.apps) as (keyof typeof b.data.apps)[]).map((a) => (
        <Switch key={a} label={m.settings.apps[a]} checked={b.data.apps[a]} disabled={!admin} onChange={(e) => set.mutate({ app: a, enabled: e.currentTarget.checked })} />
      ))}
    </Stack>
  );
}

function Notifications() {
  const { m } = useI18n();
  const b = useApi('getBusiness', {});
  const save = useApiMutation('updateBusiness', ['getBusiness']);
  if (b.isPending) return <ListSkeleton rows={3} />;
  if (b.isError) return <ErrorAlert error={b.error} onRetry={() => void b.refetch()} />;
  const keys = ['notifyUploadEmail', 'notifyUploadWhatsApp', 'notifyLateInvoiceEmail', 'notifyLateInvoiceWhatsApp'] as const;
  return (
    <Stack>
      {save.isError && <ErrorAlert error={save.error} />}
      {keys.map((k) => (
        <Switch key={k} label={m.settings.notify[k]} checked={b.data[k]} onChange={(e) => save.mutate({ [k]: e.currentTarget.checked })} />
      ))}
      <Switch label={m.recurring.notifyDueEmail} checked={b.data.notifyDueEmail} onChange={(e) => save.mutate({ notifyDueEmail: e.currentTarget.checked })} />
      <ReminderDays days={b.data.reminderDays} />
    </Stack>
  );
}

/** The supplier reminders' days as a comma list ("3, 7"; empty: off); the server checks the order, the form the numbers. */
function ReminderDays({ days }: { days: number[] }) {
  const { m } = useI18n();
  const save = useApiMutation('updateBusiness', ['getBusiness']);
  const [text, setText] = useState(days.join(', '));
  useEffect(() => setText(days.join(', ')), [days.join(',')]);
  const parts = text.split(/[,\s]+/).filter(Boolean);
  const ok = parts.length <= 5 && parts.every((p) => /^\d{1,2}$/.test(p) && Number(p) >= 1 && Number(p) <= 60);
  const serverError = fieldErrors(save.error, ['reminderDays'] as const).byField.reminderDays;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (ok) save.mutate({ reminderDays: parts.map(Number) });
      }}
      noValidate
    >
      <Stack gap="xs" align="flex-start">
        <TextInput label={m.recurring.reminderDays} description={m.recurring.reminderDaysHint} value={text} onChange={(e) => (setText(e.currentTarget.value), save.reset())} error={!ok ? m.recurring.reminderDaysBad : serverError} w="100%" maw={420} />
        <Button type="submit" loading={save.isPending} disabled={!ok}>
          {save.isSuccess ? m.saved : m.save}
        </Button>
      </Stack>
      {save.isError && !serverError && <ErrorAlert error={save.error} />}
    </form>
  );
}

function ApiKeys() {
  const { m, fill, date } = useI18n();
  const keys = useApi('apiKeysList', {});
  const create = useApiMutation('apiKeyCreate', ['apiKeysList']);
  const revoke = useApiMutation('apiKeyRevoke', ['apiKeysList']);
  const [name, setName] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  return (
    <Stack>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name: name.trim() }, { onSuccess: (r) => (setShown(r.apiKey), setName('')) });
        }}
      >
        <Group align="flex-end" wrap="wrap">
          <TextInput label={m.settings.apiKeyName} value={name} onChange={(e) => setName(e.currentTarget.value)} required />
          <Button type="submit" loading={create.isPending}>
            {m.settings.createKey}
          </Button>
        </Group>
      </form>
      {(create.isError || revoke.isError) && <ErrorAlert error={create.error ?? revoke.error} />}
      {shown && (
        <Alert color="yellow" title={m.settings.keyOnce} role="status">
          <Group wrap="nowrap" align="flex-start">
            <Code data-testid="new-key" className="wrap-anywhere" style={{ flex: 1 }}>
              {shown}
            </Code>
            <CopyButton value={shown}>
              {({ copied, copy }) => (
                <Button size="xs" onClick={copy}>
                  {copied ? m.copied : m.copy}
                </Button>
              )}
            </CopyButton>
          </Group>
          <Button size="xs" variant="subtle" mt="xs" onClick={() => setShown(null)}>
            {m.close}
          </Button>
        </Alert>
      )}
      {keys.isPending ? <ListSkeleton rows={2} /> : keys.isError ? <ErrorAlert error={keys.error} onRetry={() => void keys.refetch()} /> : !keys.data.items.length ? <Text c="dimmed">{m.settings.noKeys}</Text> : (
        <Stack gap="xs">
          {keys.data.items.map((k) => (
            <Card key={k.keyId} withBorder padding="sm">
              <Group justify="space-between" wrap="wrap">
                <Stack gap={2}>
                  <Text fw={600}>{k.name}</Text>
                  <Text size="xs" c="dimmed" dir="ltr">
                    {k.prefix}… · {k.createdBy.email}
                  </Text>
                  <Text size="xs">{k.lastUsedAt ? fill(m.settings.lastUsed, { date: date(k.lastUsedAt, true) }) : m.settings.neverUsed}</Text>
                </Stack>
                {k.revokedAt ? <Badge color="gray" style={{ textTransform: 'none' }}>{m.settings.revoked}</Badge> : <ActionButton op="apiKeyRevoke" label={`${m.settings.revoke} ${k.name}`} onRun={() => revoke.mutate({ keyId: k.keyId })} />}
              </Group>
            </Card>
          ))}
        </Stack>
      )}
    </Stack>
  );
}

function Team() {
  const { m, fill, date } = useI18n();
  const team = useApi('listTeam', {});
  // Inviting, removing and changing roles are admin-only: a user sees the team and why they cannot change it.
  const business = useApi('getBusiness', {});
  const admin = business.data?.role === 'admin';
  const invite = useApiMutation('inviteMember', ['listTeam']);
  const resend = useApiMutation('resendInvite', ['listTeam']);
  const revoke = useApiMutation('revokeInvite', ['listTeam']);
  const remove = useApiMutation('removeMember', ['listTeam']);
  const role = useApiMutation('updateMemberRole', ['listTeam']);
  const [email, setEmail] = useState('');
  const [newRole, setNewRole] = useState<'admin' | 'user'>('user');
  const failed = [invite, resend, revoke, remove, role].find((x) => x.isError);
  const roles = (['admin', 'user'] as const).map((r) => ({ value: r, label: m.roles[r] }));
  return (
    <Stack>
      {business.data && !admin && <Text c="dimmed" data-testid="team-admin-only">{m.settings.teamAdminOnly}</Text>}
      {admin && <form
        onSubmit={(e) => {
          e.preventDefault();
          invite.mutate({ email: email.trim(), role: newRole }, { onSuccess: () => setEmail('') });
        }}
      >
        <Group align="flex-end" wrap="wrap">
          <TextInput type="email" label={m.settings.inviteEmail} value={email} onChange={(e) => setEmail(e.currentTarget.value)} required dir="ltr" />
          <Select label={m.settings.role} data={roles} value={newRole} onChange={(v) => setNewRole((v ?? 'user') as 'user')} allowDeselect={false} w={140} />
          <Button type="submit" loading={invite.isPending}>
            {m.settings.invite}
          </Button>
        </Group>
      </form>}
      {failed && <ErrorAlert error={failed.error} />}
      {team.isPending ? <ListSkeleton rows={2} /> : team.isError ? <ErrorAlert error={team.error} onRetry={() => void team.refetch()} /> : (
        <>
          <Text fw={600}>{m.settings.members}</Text>
          {team.data.members.map((mem) => (
            <Card key={mem.userId} withBorder padding="sm">
              <Group justify="space-between" wrap="wrap">
                <Text dir="ltr" className="wrap-anywhere">
                  {mem.email} {mem.isYou ? m.settings.you : ''}
                </Text>
                <Group gap="xs">
                  <Select aria-label={`${m.settings.role}: ${mem.email}`} data={roles} value={mem.role} onChange={(v) => v && v !== mem.role && role.mutate({ email: mem.email, role: v as 'user' })} allowDeselect={false} w={120} disabled={mem.isYou || !admin} />
                  {!mem.isYou && admin && <ActionButton op="removeMember" label={`${m.settings.remove} ${mem.email}`} onRun={() => remove.mutate({ email: mem.email })} />}
                </Group>
              </Group>
            </Card>
          ))}
          <Text fw={600}>{m.settings.invites}</Text>
          {!team.data.invites.filter((i) => i.status === 'pending').length && <Text c="dimmed">{m.settings.noInvites}</Text>}
          {team.data.invites
            .filter((i) => i.status === 'pending')
            .map((i) => (
              <Card key={i.inviteId} withBorder padding="sm">
                <Group justify="space-between" wrap="wrap">
                  <Stack gap={2} style={{ minWidth: 0 }}>
                    <Text dir="ltr" className="wrap-anywhere">
                      {i.email}
                    </Text>
                    <Text size="xs">
                      {m.roles[i.role]} · {i.expired ? m.settings.expired : fill(m.settings.expires, { date: date(i.expiresAt) })}
                    </Text>
                  </Stack>
                  <Group gap="xs">
                    <ActionButton op="resendInvite" label={m.settings.resend} onRun={() => resend.mutate({ inviteId: i.inviteId })} />
                    <ActionButton op="revokeInvite" label={m.settings.revokeInvite} onRun={() => revoke.mutate({ inviteId: i.inviteId })} />
                  </Group>
                </Group>
              </Card>
            ))}
        </>
      )}
    </Stack>
  );
}

const PANELS: Record<Tab, () => React.JSX.Element> = { profile: Profile, link: PublicLink, apps: Apps, pay: PaySettings, integrations: Integrations, notifications: Notifications, api: ApiKeys, team: Team };

export default function Settings() {
  const { tab = 'profile' } = useParams();
  const { m } = useI18n();
  const navigate = useNavigate();
  const current = (TABS as readonly string[]).includes(tab) ? (tab as Tab) : 'profile';
  const Panel = PANELS[current];
  return (
    <>
      <PageTitle>{m.settings.title}</PageTitle>
      <Tabs value={current} onChange={(v) => v && navigate(`/settings/${v}`)} mb="md">
        <Tabs.List style={{ flexWrap: 'wrap' }}>
          {TABS.map((t) => (
            <Tabs.Tab key={t} value={t}>
              {t === 'pay' ? m.pay.settingsTab : m.settings.tabs[t]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Panel />
    </>
  );
}
