import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Button, Card, Group, Modal, PasswordInput, Select, SimpleGrid, Stack, Switch, Tabs, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { serverText } from '../../ui/serverText.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { call, type OperationName, type Output } from '../../api/client.ts';
import { closedMonths, StateBadge, useAccounts, useMonthLabel, type AccountRow, type Source, type StatementRow } from './statementsShared.tsx';
import { FileName } from '../../ui/FileName.tsx';
import { fillNodes } from '../../ui/fillNodes.tsx';
import { Ltr, Steps } from '../../ui/Ltr.tsx';

const TABS = ['months', 'sources', 'market'] as const;
type Tab = (typeof TABS)[number];
const LIST_OPS = { cardproc: 'cardprocListAccounts', usbank: 'usbankListAccounts', fxwallet: 'fxwalletListAccounts', gateway: 'gatewayListAccounts', market: 'marketListAccounts' } as const;
const AFTER_CONNECT: OperationName[] = [...Object.values(LIST_OPS), 'statementsList'];

/** Sync (or sync again) one account's month: the operation is the source's own. */
function useSync() {
  const qc = useQueryClient();
  return useMutation<unknown, Error, { source: string; accountId: string; month: string }>({
    mutationFn: ({ source, accountId, month }) => call(`${source}Sync` as 'cardprocSync', { accountId, month }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['statementsList'] }),
  });
}

function Cell({ account, st, month, sync }: { account: AccountRow; st: StatementRow | undefined; month: string; sync: ReturnType<typeof useSync> }) {
  const { m, fill, date, lang } = useI18n();
  const del = useApiMutation('statementDelete', ['statementsList']);
  const busy = sync.isPending && sync.variables?.accountId === account.id && sync.variables.month === month;
  return (
    <Card withBorder padding="xs" radius="sm" data-testid="statement-cell" data-account={account.name} data-state={st?.status ?? 'none'}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Text size="sm" fw={600} className="wrap-anywhere">
            {account.name}
            {account.currency ? ` · ${account.currency}` : ''}
          </Text>
          <StateBadge state={st?.status ?? 'none'} />
        </Group>
        {st?.status === 'failed' && st.reason && (
          <Text size="xs" c="red.9" className="wrap-anywhere">
            {fill(m.statements.failedWhy, { reason: serverText(st.reason, m, lang) })}
          </Text>
        )}
        {st?.status === 'ready' && st.syncedAt && (
          <Text size="xs" c="dimmed">
            {fill(m.statements.syncedAt, { date: date(st.syncedAt, true) })}
          </Text>
        )}
        {st?.files.map((f) => (
          <Anchor key={f.fileId} href={f.url} size="sm" className="wrap-anywhere" download={f.fileName}>
            <FileName name={f.fileName} />
          </Anchor>
        ))}
        <Group gap="xs">
          <Button size="compact-sm" variant="light" loading={busy} disabled={st?.status === 'pending' || account.status === 'needs_reconnect'} onClick={() => sync.mutate({ source: account.source, accountId: account.id, month })}>
            {st ? m.statements.resync : m.statements.sync}
            <VisuallyHidden>{` ${account.name}`}</VisuallyHidden>
          </Button>
          {st && st.status !== 'pending' && <ActionButton op="statementDelete" size="compact-sm" variant="subtle" label={fill(m.statements.deleteOne, { name: account.name })} loading={del.isPending} onRun={() => del.mutate({ id: st.id })} />}
        </Group>
        {del.isError && <ErrorAlert error={del.error} />}
      </Stack>
    </Card>
  );
}

function SendState({ send }: { send: NonNullable<StatementRow['send']> }) {
  const { m, fill, date, lang } = useI18n();
  return (
    <Stack gap={2} data-testid="send-state">
      <Group gap="xs">
        <StateBadge state={send.status} />
        <Text size="xs">{fill(m.statements.sentTo, { to: send.to.join(', '), date: date(send.at, true) })}</Text>
      </Group>
      {send.missing.length > 0 && <Text size="xs">{fill(m.statements.missing, { names: send.missing.join(', ') })}</Text>}
      {send.reason && (
        <Text size="xs" c="red.9" className="wrap-anywhere">
          {serverText(send.reason, m, lang)}
        </Text>
      )}
    </Stack>
  );
}

function MonthCard({ month, accounts, statements, sync }: { month: string; accounts: AccountRow[]; statements: StatementRow[]; sync: ReturnType<typeof useSync> }) {
  const { m, fill, date } = useI18n();
  const label = useMonthLabel();
  const zip = useApiMutation('statementsZip');
  const send = useApiMutation('statementsSend', ['statementsList']);
  const [sending, setSending] = useState(false);
  const [to, setTo] = useState('');
  const lastSend = statements.map((s) => s.send).find(Boolean) ?? null;
  const id = `month-${month}`;
  return (
    <Card withBorder component="section" aria-labelledby={id} data-testid="month" data-month={month}>
      <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
        <Title order={2} size="h4" id={id}>
          {label(month)}
        </Title>
        <Group gap="xs">
          <Button size="compact-sm" variant="default" loading={zip.isPending} onClick={() => zip.mutate({ month })}>
            {m.statements.zip}
          </Button>
          <Button size="compact-sm" variant="default" onClick={() => setSending(true)}>
            {m.statements.send}
          </Button>
        </Group>
      </Group>
      {zip.data && (
        <Alert color="green" mb="xs" role="status">
          <Button component="a" href={zip.data.url} download={zip.data.fileName} data-testid="zip-link" size="compact-sm" color="green" mb={4}>
            {fill(m.statements.zipReady, { n: zip.data.entries })}
          </Button>
          <Text size="xs">{fill(m.statements.zipExpires, { date: date(zip.data.expiresAt, true) })}</Text>
          {zip.data.missing.length > 0 && <Text size="xs">{fill(m.statements.missing, { names: zip.data.missing.join(', ') })}</Text>}
        </Alert>
      )}
      {zip.isError && <ErrorAlert error={zip.error} />}
      {lastSend ? <SendState send={lastSend} /> : <Text size="xs" c="dimmed">{m.statements.notSent}</Text>}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} mt="xs" spacing="xs">
        {accounts.map((a) => (
          <Cell key={a.id} account={a} month={month} st={statements.find((s) => s.accountId === a.id)} sync={sync} />
        ))}
      </SimpleGrid>
      <Modal opened={sending} onClose={() => setSending(false)} title={fill(m.statements.sendTitle, { month: label(month) })} centered closeButtonProps={{ 'aria-label': m.close }}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const recipients = to.split(/[\s,;]+/).filter(Boolean);
            send.mutate({ month, ...(recipients.length ? { recipients } : {}) }, { onSuccess: () => setSending(false) });
          }}
        >
          <Stack>
            <Text size="sm">{m.statements.sendBody}</Text>
            <TextInput label={m.statements.recipients} description={m.statements.recipientsHint} value={to} onChange={(e) => setTo(e.currentTarget.value)} dir="ltr" />
            {send.isError && <ErrorAlert error={send.error} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setSending(false)}>
                {m.cancel}
              </Button>
              <Button type="submit" loading={send.isPending}>
                {m.statements.send}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Card>
  );
}

function Months() {
  const { m } = useI18n();
  const navigate = useNavigate();
  const acc = useAccounts();
  const [count, setCount] = useState(6);
  const sync = useSync();
  const list = useApi('statementsList', {}, { refetchInterval: (q) => (q.state.data?.statements.some((s) => s.status === 'pending') ? 2000 : false) });
  if (acc.isPending || list.isPending) return <ListSkeleton rows={3} />;
  if (acc.error) return <ErrorAlert error={acc.error} onRetry={acc.refetch} />;
  if (list.isError) return <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />;
  if (!acc.accounts.length)
    return <Empty title={m.statements.emptyTitle} body={m.statements.emptyBody} action={<Button onClick={() => navigate('/statements/sources')}>{m.statements.connectFirst}</Button>} />;
  const months = closedMonths(count);
  return (
    <Stack>
      {sync.isError && <ErrorAlert error={sync.error} />}
      {months.map((month) => (
        <MonthCard key={month} month={month} accounts={acc.accounts} statements={list.data.statements.filter((s) => s.month === month)} sync={sync} />
      ))}
      <Group justify="center">
        <Button variant="default" onClick={() => setCount((c) => c + 6)} disabled={count >= 24}>
          {m.statements.moreMonths}
        </Button>
      </Group>
    </Stack>
  );
}

// ---------------------------------------------------------------------------------------------
// Sources: the accounts, and a form per source.

type ConnectResult = Output<'cardprocConnect'>;

function Connected({ r }: { r: ConnectResult }) {
  const { m, fill } = useI18n();
  const label = useMonthLabel();
  return (
    <Alert color="green" role="status" title={fill(m.statements.connected, { n: r.accounts.length })}>
      <Text size="sm">{r.accounts.map((a) => a.name).join(', ')}</Text>
      {r.months.length > 0 && <Text size="xs">{fill(m.statements.monthsAvailable, { months: r.months.slice(0, 6).map(label).join(', ') })}</Text>}
    </Alert>
  );
}

/** Stripe's key prefixes, as typed: left to right, so the "…" stays after the prefix inside Hebrew. */
const KEY_FORMS = { live: <Ltr>rk_live_…</Ltr>, test: <Ltr>rk_test_…</Ltr>, secret: <Ltr>sk_…</Ltr> };

/** One source's card: what the credential is, where to get it, and its form. */
function SourceCard({ source, open, children }: { source: Source; open: boolean; children: React.ReactNode }) {
  const { m } = useI18n();
  const t = m.statements.sources[source];
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) ref.current?.scrollIntoView({ block: 'center' });
  }, [open]);
  return (
    <Card withBorder ref={ref} id={`connect-${source}`} component="section" aria-labelledby={`connect-${source}-title`} style={open ? { borderColor: 'var(--mantine-color-blue-7)', borderWidth: 2 } : undefined}>
      <Title order={3} size="h5" id={`connect-${source}-title`}>
        {t.title}
      </Title>
      <Text size="sm" mt={4}>
        {fillNodes(t.what, KEY_FORMS)}
      </Text>
      <Text size="sm" c="dimmed" mb="sm">
        {fillNodes(t.where, { steps: <Steps steps={'steps' in t ? t.steps : []} /> })}
      </Text>
      {children}
    </Card>
  );
}

function TokenForm({ source, op, field, sandbox, open }: { source: 'cardproc' | 'usbank' | 'fxwallet'; op: 'cardprocConnect' | 'usbankConnect' | 'fxwalletConnect'; field: 'apiKey' | 'token'; sandbox?: boolean; open: boolean }) {
  const { m } = useI18n();
  const [value, setValue] = useState('');
  const [sb, setSb] = useState(false);
  const connect = useApiMutation(op, AFTER_CONNECT);
  return (
    <SourceCard source={source} open={open}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const input = field === 'apiKey' ? { apiKey: value.trim() } : { token: value.trim(), ...(sandbox ? { sandbox: sb } : {}) };
          connect.mutate(input as never, { onSuccess: () => setValue('') });
        }}
      >
        <Stack gap="xs">
          <PasswordInput label={m.statements.sources[source].field} value={value} onChange={(e) => setValue(e.currentTarget.value)} required dir="ltr" autoComplete="off" visibilityToggleButtonProps={{ 'aria-label': m.statements.showSecret }} />
          {sandbox && <Switch label={m.statements.sandbox} checked={sb} onChange={(e) => setSb(e.currentTarget.checked)} />}
          {connect.isError && <ErrorAlert error={connect.error} />}
          {connect.data && <Connected r={connect.data} />}
          <Group>
            <Button type="submit" loading={connect.isPending}>
              {m.statements.connect}
            </Button>
          </Group>
        </Stack>
      </form>
    </SourceCard>
  );
}

function GatewayForm({ open }: { open: boolean }) {
  const { m } = useI18n();
  const [f, setF] = useState({ username: '', password: '', sandbox: false });
  const connect = useApiMutation('gatewayConnect', AFTER_CONNECT);
  return (
    <SourceCard source="gateway" open={open}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          connect.mutate({ username: f.username.trim(), password: f.password, sandbox: f.sandbox }, { onSuccess: () => setF({ username: '', password: '', sandbox: false }) });
        }}
      >
        <Stack gap="xs">
          <TextInput label={m.statements.sources.gateway.field} value={f.username} onChange={(e) => setF({ ...f, username: e.currentTarget.value })} required dir="ltr" autoComplete="off" />
          <PasswordInput label={m.statements.apiPassword} value={f.password} onChange={(e) => setF({ ...f, password: e.currentTarget.value })} required dir="ltr" autoComplete="off" visibilityToggleButtonProps={{ 'aria-label': m.statements.showSecret }} />
          <Switch label={m.statements.sandbox} checked={f.sandbox} onChange={(e) => setF({ ...f, sandbox: e.currentTarget.checked })} />
          {connect.isError && <ErrorAlert error={connect.error} />}
          {connect.data && <Connected r={connect.data} />}
          <Group>
            <Button type="submit" loading={connect.isPending}>
              {m.statements.connect}
            </Button>
          </Group>
        </Stack>
      </form>
    </SourceCard>
  );
}

function MarketForm({ open, configured }: { open: boolean; configured: boolean }) {
  const { m } = useI18n();
  const [err, setErr] = useState<unknown>(null);
  const [going, setGoing] = useState(false);
  return (
    <SourceCard source="market" open={open}>
      {!configured && <Text size="sm">{m.statements.marketNotConfigured}</Text>}
      {err ? <ErrorAlert error={err} /> : null}
      <Group>
        <Button
          disabled={!configured}
          loading={going}
          onClick={() => {
            setGoing(true);
            // The consent happens at Upwork; its return page links back to this screen.
            void call('marketConnectStart', {}).then((r) => window.location.assign(r.url), (e) => (setErr(e), setGoing(false)));
          }}
        >
          {m.statements.marketConnect}
        </Button>
      </Group>
    </SourceCard>
  );
}

function Sources() {
  const { m, fill, date, lang } = useI18n();
  const acc = useAccounts();
  const [params, setParams] = useSearchParams();
  const reconnect = params.get('reconnect') as Source | null;
  const qc = useQueryClient();
  const disconnect = useMutation<unknown, Error, AccountRow>({
    mutationFn: (a) => call(`${a.source}Disconnect` as 'cardprocDisconnect', { accountId: a.id }),
    onSuccess: () => Promise.all(AFTER_CONNECT.map((k) => qc.invalidateQueries({ queryKey: [k] }))),
  });
  return (
    <Stack gap="lg">
      <section aria-labelledby="accounts-title">
        <Title order={2} size="h4" id="accounts-title" mb="xs">
          {m.statements.accounts}
        </Title>
        {acc.isPending ? (
          <ListSkeleton rows={2} />
        ) : acc.error ? (
          <ErrorAlert error={acc.error} onRetry={acc.refetch} />
        ) : !acc.accounts.length ? (
          <Text c="dimmed">{m.statements.noAccounts}</Text>
        ) : (
          <Stack gap="xs" data-testid="accounts">
            {disconnect.isError && <ErrorAlert error={disconnect.error} />}
            {acc.accounts.map((a) => (
              <Card key={a.id} withBorder padding="sm" data-testid="account" data-state={a.status}>
                <Group justify="space-between" wrap="wrap" gap="xs">
                  <Stack gap={2} style={{ minWidth: 0 }}>
                    <Text fw={600} className="wrap-anywhere">
                      {a.name}
                      {a.currency ? ` · ${a.currency}` : ''}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {m.statements.sources[a.source as Source]?.title ?? a.source} · {fill(m.statements.connectedAt, { date: date(a.connectedAt) })}
                    </Text>
                    {a.status === 'needs_reconnect' && a.reason && (
                      <Text size="xs" c="red.9" className="wrap-anywhere">
                        {serverText(a.reason, m, lang)}
                      </Text>
                    )}
                  </Stack>
                  <Group gap="xs">
                    <StateBadge state={a.status} />
                    {a.status === 'needs_reconnect' && (
                      <Button size="compact-sm" onClick={() => setParams({ reconnect: a.source }, { replace: true })}>
                        {m.statements.reconnect}
                      </Button>
                    )}
                    <ActionButton op={`${a.source}Disconnect` as OperationName} size="compact-sm" variant="subtle" label={fill(m.statements.disconnect, { name: a.name })} onRun={() => disconnect.mutate(a)} />
                  </Group>
                </Group>
              </Card>
            ))}
          </Stack>
        )}
      </section>
      <section aria-labelledby="connect-title">
        <Title order={2} size="h4" id="connect-title" mb="xs">
          {m.statements.connectTitle}
        </Title>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <TokenForm source="cardproc" op="cardprocConnect" field="apiKey" open={reconnect === 'cardproc'} />
          <TokenForm source="usbank" op="usbankConnect" field="token" open={reconnect === 'usbank'} />
          <TokenForm source="fxwallet" op="fxwalletConnect" field="token" sandbox open={reconnect === 'fxwallet'} />
          <GatewayForm open={reconnect === 'gateway'} />
          <MarketForm open={reconnect === 'market'} configured={acc.marketConfigured} />
        </SimpleGrid>
      </section>
    </Stack>
  );
}

// ---------------------------------------------------------------------------------------------
// The marketplace's transactions of a month.

function Market() {
  const { m, fill, date } = useI18n();
  const label = useMonthLabel();
  const accounts = useApi('marketListAccounts', {});
  const [params, setParams] = useSearchParams();
  const months = closedMonths(24);
  const accountId = params.get('account') ?? accounts.data?.accounts[0]?.id ?? '';
  const month = params.get('month') ?? months[0];
  const tx = useApi('marketTransactions', { accountId, month }, { enabled: Boolean(accountId), refetchInterval: (q) => (q.state.data?.status === 'pending' ? 2000 : false) });
  const sync = useSync();
  const set = (k: string, v: string | null) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    setParams(next, { replace: true });
  };
  if (accounts.isPending) return <ListSkeleton rows={2} />;
  if (accounts.isError) return <ErrorAlert error={accounts.error} onRetry={() => void accounts.refetch()} />;
  if (!accounts.data.accounts.length) return <Empty title={m.statements.marketEmpty} body={accounts.data.configured ? m.statements.marketEmptyBody : m.statements.marketNotConfigured} />;
  return (
    <Stack>
      <Group grow wrap="wrap" align="flex-end">
        <Select label={m.statements.organization} data={accounts.data.accounts.map((a) => ({ value: a.id, label: a.name }))} value={accountId} onChange={(v) => set('account', v)} allowDeselect={false} />
        <Select label={m.statements.month} data={months.map((x) => ({ value: x, label: label(x) }))} value={month} onChange={(v) => set('month', v)} allowDeselect={false} />
      </Group>
      {tx.isPending ? (
        <ListSkeleton rows={3} />
      ) : tx.isError ? (
        <ErrorAlert error={tx.error} onRetry={() => void tx.refetch()} />
      ) : (
        <>
          <Group gap="xs">
            <StateBadge state={tx.data.status === 'not_synced' ? 'none' : tx.data.status} />
            {tx.data.syncedAt && <Text size="xs">{fill(m.statements.syncedAt, { date: date(tx.data.syncedAt, true) })}</Text>}
            <Button size="compact-sm" variant="light" loading={sync.isPending} disabled={tx.data.status === 'pending'} onClick={() => sync.mutate({ source: 'market', accountId, month }, { onSuccess: () => void tx.refetch() })}>
              {tx.data.status === 'not_synced' ? m.statements.sync : m.statements.resync}
            </Button>
          </Group>
          {tx.data.reason && <Text c="red.9" size="sm">{fill(m.statements.failedWhy, { reason: tx.data.reason })}</Text>}
          {sync.isError && <ErrorAlert error={sync.error} />}
          {!tx.data.transactions.length ? (
            <Text c="dimmed">{m.statements.noTransactions}</Text>
          ) : (
            <Stack gap="xs" data-testid="transactions">
              {tx.data.transactions.map((t, i) => (
                <Card key={t.id ?? i} withBorder padding="xs">
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    <Stack gap={2} style={{ minWidth: 0 }}>
                      <Text size="sm" className="wrap-anywhere">
                        {t.description || t.type}
                      </Text>
                      <Text size="xs" c="dimmed" className="wrap-anywhere">
                        {[t.date ? date(t.date) : '', t.type, t.freelancer].filter(Boolean).join(' · ')}
                      </Text>
                    </Stack>
                    <Text fw={600} size="sm">
                      <bdi dir="ltr">
                        {t.amount} {t.currency}
                      </bdi>
                    </Text>
                  </Group>
                </Card>
              ))}
            </Stack>
          )}
        </>
      )}
    </Stack>
  );
}

const PANELS: Record<Tab, () => React.JSX.Element> = { months: Months, sources: Sources, market: Market };

/** Statements: the months × accounts grid, the sources (accounts and a connect form per source), the marketplace's transactions. */
export default function Statements() {
  const { tab = 'months' } = useParams();
  const { m } = useI18n();
  const navigate = useNavigate();
  const current = (TABS as readonly string[]).includes(tab) ? (tab as Tab) : 'months';
  const Panel = PANELS[current];
  return (
    <>
      <PageTitle>{m.statements.title}</PageTitle>
      <Tabs value={current} onChange={(v) => v && navigate(v === 'months' ? '/statements' : `/statements/${v}`)} mb="md">
        <Tabs.List style={{ flexWrap: 'wrap' }}>
          {TABS.map((t) => (
            <Tabs.Tab key={t} value={t}>
              {m.statements.tabs[t]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Panel />
    </>
  );
}

