import { useState } from 'react';
import { Badge, Button, Card, Group, PasswordInput, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { fieldErrors } from '../../ui/fieldErrors.ts';
import { ApiError, call, type Output } from '../../api/client.ts';

/**
 * Settings → integrations: the tax authority consent, and the invoicing providers' credentials
 * (saveBusinessIntegration). Credentials are write-only: the screen shows whether each is set, never its
 * value, and the inputs start empty (left empty, a stored value stays). The API's field-named errors show
 * under their inputs.
 */
type Integration = Output<'getBusiness'>['integrations'][number];
const FIELDS = ['provider', 'apiKey', 'apiSecret', 'note'] as const;
/** The invoicing software the backend knows no list of: ids chosen here, names in i18n; "other" takes a typed id. */
const KNOWN = ['greeninvoice', 'icount', 'rivhit', 'ezcount', 'sumit', 'invoice4u'] as const;
const OTHER = 'other';
const knownName = (m: ReturnType<typeof useI18n>['m'], id: string) => (m.integrations.providers as Record<string, string>)[id];

function Ita({ ita }: { ita: Output<'getBusiness'>['ita'] }) {
  const { m, fill, date } = useI18n();
  const disconnect = useApiMutation('itaDisconnect', ['getBusiness']);
  const [err, setErr] = useState<unknown>(null);
  return (
    <Card withBorder>
      <Title order={2} size="h4">
        {m.settings.ita}
      </Title>
      <Text>{ita.connected ? fill(m.settings.itaConnected, { date: date(ita.expiresAt) }) : m.settings.itaNotConnected}</Text>
      <Group mt="xs">
        {ita.connected ? (
          <ActionButton op="itaDisconnect" label={m.settings.itaDisconnect} onRun={() => disconnect.mutate({})} />
        ) : (
          <Button onClick={() => void call('itaConnectStart', {}).then((r) => window.location.assign(r.url), setErr)}>{m.settings.itaConnect}</Button>
        )}
      </Group>
      {(err || disconnect.isError) && <ErrorAlert error={err ?? disconnect.error} />}
    </Card>
  );
}

/** The credentials form: a new provider (with its id) or one already stored (id fixed). */
function CredentialsForm({ existing, admin, onDone }: { existing?: Integration; admin: boolean; onDone?(): void }) {
  const { m, fill } = useI18n();
  const save = useApiMutation('saveBusinessIntegration', ['getBusiness']);
  const [choice, setChoice] = useState<string | null>(null);
  const [provider, setProvider] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [apiSecret, setApiSecret] = useState('');
  const [note, setNote] = useState(existing?.note ?? '');
  const { byField, rest } = fieldErrors(save.error, FIELDS);
  const general = save.isError && (!(save.error instanceof ApiError) || save.error.code !== 'invalid-argument' || rest.length > 0);
  const secretHint = (set: boolean | undefined) => (existing ? (set ? m.integrations.keepHint : m.integrations.notSet) : undefined);
  const id = existing?.provider ?? 'new';
  return (
    <form
      aria-label={existing ? fill(m.integrations.editOf, { provider: existing.provider }) : m.integrations.add}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(
          {
            provider: existing?.provider ?? (choice === OTHER ? provider.trim() : (choice ?? '')),
            // Empty inputs leave what is stored; nothing stored is ever shown back.
            ...(apiKey ? { apiKey } : {}),
            ...(apiSecret ? { apiSecret } : {}),
            note,
          },
          {
            onSuccess: () => {
              setApiKey('');
              setApiSecret('');
              if (!existing) {
                setChoice(null);
                setProvider('');
              }
              onDone?.();
            },
          },
        );
      }}
    >
      <Stack gap="sm">
        {!existing && (
          <Select
            label={m.integrations.provider}
            data={[...KNOWN.map((p) => ({ value: p, label: knownName(m, p) })), { value: OTHER, label: m.integrations.providerOther }]}
            value={choice}
            onChange={setChoice}
            error={choice === OTHER ? undefined : byField.provider}
            required
            disabled={!admin}
            id={`${id}-provider`}
          />
        )}
        {!existing && choice === OTHER && (
          <TextInput label={m.integrations.otherId} description={m.integrations.providerHint} value={provider} onChange={(e) => setProvider(e.currentTarget.value)} error={byField.provider} dir="ltr" required disabled={!admin} id={`${id}-providerId`} />
        )}
        <PasswordInput label={m.integrations.apiKey} description={secretHint(existing?.hasApiKey)} value={apiKey} onChange={(e) => setApiKey(e.currentTarget.value)} error={byField.apiKey} autoComplete="off" dir="ltr" disabled={!admin} id={`${id}-apiKey`} />
        <PasswordInput label={m.integrations.apiSecret} description={secretHint(existing?.hasApiSecret)} value={apiSecret} onChange={(e) => setApiSecret(e.currentTarget.value)} error={byField.apiSecret} autoComplete="off" dir="ltr" disabled={!admin} id={`${id}-apiSecret`} />
        <Textarea label={m.integrations.note} value={note} onChange={(e) => setNote(e.currentTarget.value)} error={byField.note} autosize minRows={1} disabled={!admin} id={`${id}-note`} />
        {general && <ErrorAlert error={rest.length ? new ApiError('invalid-argument', rest.join('; '), 400) : save.error} />}
        <Group>
          <Button type="submit" loading={save.isPending} disabled={!admin}>
            {existing ? m.save : m.integrations.connect}
          </Button>
          {save.isSuccess && !save.isPending && (
            <Text size="sm" role="status">
              {m.saved}
            </Text>
          )}
        </Group>
      </Stack>
    </form>
  );
}

function Stored({ i, admin }: { i: Integration; admin: boolean }) {
  const { m, fill, date } = useI18n();
  const [editing, setEditing] = useState(false);
  const disconnect = useApiMutation('saveBusinessIntegration', ['getBusiness']);
  const state = (set: boolean) => (
    <Badge color={set ? 'green' : 'gray'} variant="light" style={{ textTransform: 'none' }}>
      {set ? m.integrations.set : m.integrations.notSet}
    </Badge>
  );
  return (
    <Card withBorder padding="sm" data-testid={`integration-${i.provider}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Text fw={700} dir={knownName(m, i.provider) ? undefined : 'ltr'}>
            {knownName(m, i.provider) ?? i.provider}
          </Text>
          <Badge color={i.connected ? 'green' : 'gray'} style={{ textTransform: 'none' }}>
            {i.connected ? m.settings.connected : m.settings.notConnected}
          </Badge>
        </Group>
        <Group gap="md" wrap="wrap">
          <Group gap={6}>
            <Text size="sm">{m.integrations.apiKey}:</Text>
            {state(i.hasApiKey)}
          </Group>
          <Group gap={6}>
            <Text size="sm">{m.integrations.apiSecret}:</Text>
            {state(i.hasApiSecret)}
          </Group>
        </Group>
        {i.note && <Text size="sm">{i.note}</Text>}
        <Text size="xs" c="dimmed">
          {fill(m.integrations.updated, { date: date(i.updatedAt, true) })}
        </Text>
        {editing ? (
          <CredentialsForm existing={i} admin={admin} onDone={() => setEditing(false)} />
        ) : (
          <Group gap="xs">
            <Button variant="default" size="sm" onClick={() => setEditing(true)} disabled={!admin} aria-label={`${m.integrations.edit} ${i.provider}`}>
              {m.integrations.edit}
            </Button>
            <ActionButton op="saveBusinessIntegration" label={fill(m.integrations.disconnectOf, { provider: i.provider })} onRun={() => disconnect.mutate({ provider: i.provider, action: 'disconnect' })} loading={disconnect.isPending} disabled={!admin} />
          </Group>
        )}
        {disconnect.isError && <ErrorAlert error={disconnect.error} />}
      </Stack>
    </Card>
  );
}

export default function Integrations() {
  const { m } = useI18n();
  const b = useApi('getBusiness', {});
  if (b.isPending) return <ListSkeleton rows={3} />;
  if (b.isError) return <ErrorAlert error={b.error} onRetry={() => void b.refetch()} />;
  const admin = b.data.role === 'admin';
  return (
    <Stack>
      <Ita ita={b.data.ita} />
      <Card withBorder>
        <Stack>
          <Title order={2} size="h4">
            {m.settings.integrations}
          </Title>
          <Text size="sm">{m.integrations.intro}</Text>
          {!admin && <Text c="dimmed">{m.settings.adminOnly}</Text>}
          {b.data.integrations.length === 0 ? <Text c="dimmed">{m.integrations.empty}</Text> : b.data.integrations.map((i) => <Stored key={i.provider} i={i} admin={admin} />)}
          <Title order={3} size="h5">
            {m.integrations.add}
          </Title>
          <CredentialsForm admin={admin} />
        </Stack>
      </Card>
    </Stack>
  );
}
