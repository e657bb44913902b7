import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Badge, Button, Card, Group, Modal, Progress, Select, Stack, Switch, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { gmailLabelName } from '../../ui/names.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { RunOutcomeText } from '../../ui/TemplateText.tsx';
import type { OperationName, Output } from '../../api/client.ts';
import { closedMonths, StateBadge, useMonthLabel } from '../statements/statementsShared.tsx';

type Automation = Output<'automationList'>['items'][number];
type Run = Output<'automationRuns'>['items'][number];
const AFTER: OperationName[] = ['automationList', 'automationRuns'];
const RUN_COLOR = { running: 'yellow', done: 'green', failed: 'red' } as const;
const isStatements = (a: Automation): a is Automation & { config: { recipients: string[]; onlyWhenComplete: boolean; includeAccountantZip?: boolean } } => a.type === 'statements';

function RunStatus({ status }: { status: Run['status'] }) {
  const { m } = useI18n();
  return (
    <Badge color={RUN_COLOR[status]} variant="light" style={{ textTransform: 'none' }}>
      {m.automations.runStatus[status]}
    </Badge>
  );
}

/** One run: its summary and, for a statements run, each account's outcome as a progress bar while it runs. */
function RunCard({ run }: { run: Run }) {
  const { m, fill, date } = useI18n();
  const label = useMonthLabel();
  const settled = run.accounts.filter((a) => a.status !== 'pending').length;
  return (
    <Card withBorder padding="sm" data-testid="run" data-status={run.status}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text size="sm" fw={600}>
            {run.month ? label(run.month) : date(run.startedAt, true)} · {m.automations.trigger[run.trigger]}
          </Text>
          <RunStatus status={run.status} />
        </Group>
        <Text size="sm" className="wrap-anywhere">
          <RunOutcomeText outcome={run.outcome} params={run.params} summary={run.summary} />
        </Text>
        <Text size="xs" c="dimmed">
          {fill(m.automations.runTimes, { start: date(run.startedAt, true), end: run.finishedAt ? date(run.finishedAt, true) : '…' })}
        </Text>
        {run.accounts.length > 0 && (
          <>
            {run.status === 'running' && <Progress value={(settled / run.accounts.length) * 100} animated aria-label={fill(m.automations.accountsSettled, { n: settled, total: run.accounts.length })} />}
            <Text size="xs">{fill(m.automations.accountsSettled, { n: settled, total: run.accounts.length })}</Text>
            <Stack gap={2}>
              {run.accounts.map((a) => (
                <Group key={a.accountId} gap="xs" wrap="nowrap">
                  <StateBadge state={a.status} />
                  <Text size="xs" className="wrap-anywhere">
                    {a.name}
                    {a.reason ? ` · ${a.reason}` : ''}
                  </Text>
                </Group>
              ))}
            </Stack>
          </>
        )}
        {run.mailed && (
          <Group gap="xs">
            <StateBadge state={run.mailed.status} />
            <Text size="xs" className="wrap-anywhere">
              {fill(m.automations.mailedTo, { to: run.mailed.to.join(', ') })}
            </Text>
          </Group>
        )}
        {run.import && <Text size="xs">{fill(m.automations.importLine, { found: run.import.found, seen: run.import.seen, invoices: run.import.invoices, status: run.import.status })}</Text>}
      </Stack>
    </Card>
  );
}

/** The statements automation's name in the user's language; a mailbox automation's is the owner's own. */
function useName() {
  const { m } = useI18n();
  return (a: Automation) => (a.system ? m.automations.statementsTitle : a.name);
}

function Runs({ automation }: { automation: Automation }) {
  const { m, fill } = useI18n();
  const nameOf = useName();
  const runs = useApi('automationRuns', { id: automation.id }, { refetchInterval: (q) => (q.state.data?.items.some((r) => r.status === 'running') ? 1500 : false), staleTime: 0 });
  return (
    <section aria-labelledby="runs-title" data-testid="runs">
      <Title order={2} size="h4" id="runs-title" mb="xs">
        {fill(m.automations.runsOf, { name: nameOf(automation) })}
      </Title>
      {runs.isPending ? (
        <ListSkeleton rows={2} />
      ) : runs.isError ? (
        <ErrorAlert error={runs.error} onRetry={() => void runs.refetch()} />
      ) : !runs.data.items.length ? (
        <Text c="dimmed">{m.automations.noRuns}</Text>
      ) : (
        <Stack gap="xs">
          {runs.data.items.map((r) => (
            <RunCard key={r.runId} run={r} />
          ))}
        </Stack>
      )}
    </section>
  );
}

function StatementsAutomation({ a, onRuns }: { a: Automation & { config: { recipients: string[]; onlyWhenComplete: boolean; includeAccountantZip?: boolean } }; onRuns(): void }) {
  const { m } = useI18n();
  const label = useMonthLabel();
  const update = useApiMutation('automationUpdate', AFTER);
  const run = useApiMutation('automationRunNow', AFTER);
  const [recipients, setRecipients] = useState(a.config.recipients);
  const [month, setMonth] = useState(closedMonths(1)[0]);
  useEffect(() => setRecipients(a.config.recipients), [a.config.recipients]);
  return (
    <Card withBorder component="section" aria-labelledby="auto-statements" data-testid="statements-automation">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h4" id="auto-statements">
            {m.automations.statementsTitle}
          </Title>
          <Badge color={a.enabled ? 'green' : 'gray'} variant="light" style={{ textTransform: 'none' }}>
            {a.enabled ? m.automations.active : m.automations.paused}
          </Badge>
        </Group>
        <Text size="sm">{m.automations.statementsWhat}</Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            update.mutate({ id: a.id, config: { recipients } });
          }}
        >
          <Stack gap="xs">
            <TagsInput label={m.automations.recipients} description={m.automations.recipientsHint} value={recipients} onChange={setRecipients} splitChars={[',', ' ', ';']} dir="ltr" clearable />
            <Group>
              <Button type="submit" variant="light" loading={update.isPending && update.variables?.config?.recipients !== undefined}>
                {m.automations.saveRecipients}
              </Button>
            </Group>
          </Stack>
        </form>
        <Switch label={m.automations.onlyWhenComplete} description={m.automations.onlyWhenCompleteHint} checked={a.config.onlyWhenComplete} onChange={(e) => update.mutate({ id: a.id, config: { onlyWhenComplete: e.currentTarget.checked } })} />
        <Switch label={m.automations.includeAccountantZip} description={m.automations.includeAccountantZipHint} checked={a.config.includeAccountantZip ?? false} onChange={(e) => update.mutate({ id: a.id, config: { includeAccountantZip: e.currentTarget.checked } })} />
        <Switch label={m.automations.enabled} checked={a.enabled} onChange={(e) => update.mutate({ id: a.id, enabled: e.currentTarget.checked })} />
        {update.isError && <ErrorAlert error={update.error} />}
        <Group align="flex-end" wrap="wrap" gap="xs">
          <Select label={m.automations.month} data={closedMonths(24).map((x) => ({ value: x, label: label(x) }))} value={month} onChange={(v) => v && setMonth(v)} allowDeselect={false} w={200} />
          <Button loading={run.isPending} disabled={!a.enabled} onClick={() => run.mutate({ id: a.id, month }, { onSuccess: onRuns })}>
            {m.automations.runNow}
          </Button>
        </Group>
        {!a.enabled && <Text size="xs">{m.automations.pausedHint}</Text>}
        {run.isError && <ErrorAlert error={run.error} />}
      </Stack>
    </Card>
  );
}

function MailboxAutomation({ a, onRuns }: { a: Automation & { config: { accountId: string; labelId: string | null; labelName: string } }; onRuns(): void }) {
  const { m, fill, date } = useI18n();
  const update = useApiMutation('automationUpdate', AFTER);
  const del = useApiMutation('automationDelete', AFTER);
  const run = useApiMutation('automationRunNow', AFTER);
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(a.name);
  const failed = [update, del, run].find((x) => x.isError);
  return (
    <Card withBorder padding="sm" data-testid="mailbox-automation">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Text fw={600} className="wrap-anywhere">
              {a.name}
            </Text>
            <Text size="xs" c="dimmed">
              {a.config.labelId ? fill(m.automations.onLabel, { label: gmailLabelName(m, { id: a.config.labelId, name: a.config.labelName || a.config.labelId }) }) : m.automations.onMailbox}
              {a.lastPolledAt ? ` · ${fill(m.automations.lastPolled, { date: date(a.lastPolledAt, true) })}` : ''}
            </Text>
          </Stack>
          <Badge color={a.enabled ? 'green' : 'gray'} variant="light" style={{ textTransform: 'none' }}>
            {a.enabled ? m.automations.active : m.automations.paused}
          </Badge>
        </Group>
        <Group gap="xs">
          <Button size="compact-sm" variant="light" onClick={() => update.mutate({ id: a.id, enabled: !a.enabled })}>
            {a.enabled ? m.automations.pause : m.automations.resume}
          </Button>
          <Button size="compact-sm" variant="light" disabled={!a.enabled} loading={run.isPending} onClick={() => run.mutate({ id: a.id }, { onSuccess: onRuns })}>
            {m.automations.checkNow}
          </Button>
          <Button size="compact-sm" variant="default" onClick={() => (setName(a.name), setRenaming(true))}>
            {m.automations.rename}
          </Button>
          <Button size="compact-sm" variant="default" onClick={onRuns}>
            {m.automations.history}
          </Button>
          <ActionButton op="automationDelete" size="compact-sm" variant="subtle" label={fill(m.automations.delete, { name: a.name })} onRun={() => del.mutate({ id: a.id })} />
        </Group>
        {failed && <ErrorAlert error={failed.error} />}
      </Stack>
      <Modal opened={renaming} onClose={() => setRenaming(false)} title={m.automations.rename} centered closeButtonProps={{ 'aria-label': m.close }}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            update.mutate({ id: a.id, name: name.trim() }, { onSuccess: () => setRenaming(false) });
          }}
        >
          <Stack>
            <TextInput label={m.automations.name} value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={100} />
            {update.isError && <ErrorAlert error={update.error} />}
            <Group justify="flex-end">
              <Button type="submit" loading={update.isPending}>
                {m.save}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Card>
  );
}

function CreateMailboxAutomation() {
  const { m } = useI18n();
  const boxes = useApi('mailboxListAccounts', {});
  const [accountId, setAccountId] = useState<string | null>(null);
  const [labelId, setLabelId] = useState<string | null>(null);
  const [name, setName] = useState('');
  const labels = useApi('mailboxListLabels', { accountId: accountId ?? '' }, { enabled: Boolean(accountId), staleTime: 60_000 });
  const create = useApiMutation('automationCreate', [...AFTER, 'mailboxListAccounts']);
  if (boxes.data && !boxes.data.items.length) return <Text c="dimmed">{m.automations.noMailboxes}</Text>;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!accountId) return;
        const label = labels.data?.items.find((l) => l.id === labelId);
        create.mutate(
          { type: 'mailbox_invoices', config: { accountId, labelId: labelId ?? null, ...(label ? { labelName: label.name } : {}) }, ...(name.trim() ? { name: name.trim() } : {}) },
          { onSuccess: () => (setName(''), setLabelId(null)) },
        );
      }}
    >
      <Stack gap="xs">
        <Group grow wrap="wrap" align="flex-end">
          <Select label={m.automations.mailbox} data={(boxes.data?.items ?? []).map((b) => ({ value: b.accountId, label: b.email }))} value={accountId} onChange={(v) => (setAccountId(v), setLabelId(null))} required />
          <Select label={m.automations.label} placeholder={m.automations.anyLabel} clearable disabled={!labels.data} data={(labels.data?.items ?? []).map((l) => ({ value: l.id, label: gmailLabelName(m, l) }))} value={labelId} onChange={setLabelId} />
          <TextInput label={m.automations.nameOptional} value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={100} />
        </Group>
        {create.isError && <ErrorAlert error={create.error} />}
        <Group>
          <Button type="submit" disabled={!accountId} loading={create.isPending}>
            {m.automations.create}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Automations: the statements automation, mailbox automations, and the runs of the one chosen. */
export default function Automations() {
  const { m } = useI18n();
  const list = useApi('automationList', {}, { refetchInterval: 5000 });
  const [params, setParams] = useSearchParams();
  const nameOf = useName();
  if (list.isPending)
    return (
      <>
        <PageTitle>{m.automations.title}</PageTitle>
        <ListSkeleton rows={3} />
      </>
    );
  if (list.isError) return <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />;
  const items = list.data.items;
  const statements = items.find(isStatements);
  const mailbox = items.filter((a) => !isStatements(a)) as (Automation & { config: { accountId: string; labelId: string | null; labelName: string } })[];
  const shown = items.find((a) => a.id === params.get('runs')) ?? statements ?? items[0];
  const showRuns = (id: string) => () => setParams({ runs: id }, { replace: true });
  return (
    <>
      <PageTitle>{m.automations.title}</PageTitle>
      <Stack gap="lg">
        {statements && <StatementsAutomation a={statements} onRuns={showRuns(statements.id)} />}
        <Card withBorder component="section" aria-labelledby="auto-mailboxes">
          <Title order={2} size="h4" id="auto-mailboxes" mb="xs">
            {m.automations.mailboxTitle}
          </Title>
          <Text size="sm" mb="sm">
            {m.automations.mailboxWhat}
          </Text>
          <Stack gap="xs" mb="md">
            {mailbox.length ? mailbox.map((a) => <MailboxAutomation key={a.id} a={a} onRuns={showRuns(a.id)} />) : <Text c="dimmed">{m.automations.noMailboxAutomations}</Text>}
          </Stack>
          <CreateMailboxAutomation />
        </Card>
        {shown && (
          <>
            {items.length > 1 && (
              <Select label={m.automations.historyOf} data={items.map((a) => ({ value: a.id, label: nameOf(a) }))} value={shown.id} onChange={(v) => v && setParams({ runs: v }, { replace: true })} allowDeselect={false} maw={360} />
            )}
            <Runs automation={shown} />
          </>
        )}
      </Stack>
    </>
  );
}
