import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { Alert, Anchor, Badge, Button, Card, Checkbox, Group, Modal, Progress, Select, Skeleton, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { gmailLabelName } from '../../ui/names.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle, Pager, SearchForm, useListParams } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { FileName } from '../../ui/FileName.tsx';
import { fillNodes } from '../../ui/fillNodes.tsx';
import { Address, Ltr } from '../../ui/Ltr.tsx';
import { call, type Output } from '../../api/client.ts';
import { calendarDay, israelToday } from '../statements/statementsShared.tsx';

type Mailbox = Output<'mailboxListAccounts'>['items'][number];
type Mail = Output<'mailsList'>['items'][number];
type Import = Output<'mailboxImportGet'>;
const RESULTS = ['processing', 'imported', 'no_invoice', 'duplicate', 'error'] as const;
const RESULT_COLOR: Record<Mail['result'], string> = { processing: 'yellow', imported: 'green', no_invoice: 'gray', duplicate: 'orange', error: 'red' };

/** A new import id as the API takes it: 20 lowercase letters or digits. */
function newImportId(): string {
  const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => abc[b % abc.length]).join('');
}

/** Starts the mailbox consent; the provider's return page links back to /mailboxes. */
function useConnect() {
  const [err, setErr] = useState<unknown>(null);
  const [going, setGoing] = useState(false);
  const start = () => {
    setGoing(true);
    setErr(null);
    void call('mailboxConnectStart', {}).then((r) => window.location.assign(r.url), (e) => (setErr(e), setGoing(false)));
  };
  return { start, going, err };
}

function ResultBadge({ result }: { result: Mail['result'] }) {
  const { m } = useI18n();
  return (
    <Badge color={RESULT_COLOR[result]} variant="light" style={{ textTransform: 'none' }}>
      {m.mailboxes.results[result]}
    </Badge>
  );
}

/** The import's live progress: polled every second while it runs; cancel; the counts when it ends. */
function ImportProgress({ importId, onClose }: { importId: string; onClose(): void }) {
  const { m, fill, number, date } = useI18n();
  const q = useApi('mailboxImportGet', { importId }, { refetchInterval: (x) => (!x.state.data || x.state.data.status === 'running' ? 1000 : false), staleTime: 0 });
  const cancel = useApiMutation('mailboxImportCancel', ['mailboxImportGet', 'mailsList']);
  if (q.isPending) return <ListSkeleton rows={1} />;
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} />;
  const r: Import = q.data;
  const running = r.status === 'running';
  const pct = r.total ? Math.round((r.seen / r.total) * 100) : running ? 0 : 100;
  return (
    <Card withBorder data-testid="import" data-status={r.status}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Text fw={600}>{running ? m.mailboxes.importRunning : m.mailboxes.importStatus[r.status]}</Text>
          <Text size="sm" data-testid="import-count">
            {fill(m.mailboxes.progress, { seen: number(r.seen), total: number(r.total) })}
          </Text>
        </Group>
        <Progress value={pct} animated={running} aria-label={m.mailboxes.progressLabel} size="lg" />
        <Text size="sm">{fill(m.mailboxes.counts, { invoices: r.invoices, duplicates: r.duplicates, noInvoice: r.noInvoice, errors: r.errors })}</Text>
        {r.retryLater > 0 && <Text size="sm">{fill(m.mailboxes.retryLater, { n: r.retryLater })}</Text>}
        {r.resumesAt && <Text size="sm">{fill(m.mailboxes.resumesAt, { date: date(r.resumesAt, true) })}</Text>}
        {r.reason && (
          <Text size="sm" c="red.9" className="wrap-anywhere">
            {r.reason}
          </Text>
        )}
        {cancel.isError && <ErrorAlert error={cancel.error} />}
        <Group gap="xs">
          {running ? (
            <ActionButton op="mailboxImportCancel" label={m.mailboxes.cancelImport} color="red" loading={cancel.isPending} onRun={() => cancel.mutate({ importId })} />
          ) : (
            <>
              <Button component={Link} to={`/mailboxes/mails?import=${encodeURIComponent(importId)}`}>
                {m.mailboxes.seeMails}
              </Button>
              <Button variant="default" onClick={onClose}>
                {m.close}
              </Button>
            </>
          )}
        </Group>
      </Stack>
    </Card>
  );
}

/** Labels, then "this will look at N mails", then the import. */
function ImportPanel({ box }: { box: Mailbox }) {
  const { m, fill, number } = useI18n();
  const [params, setParams] = useSearchParams();
  const labels = useApi('mailboxListLabels', { accountId: box.accountId }, { staleTime: 60_000 });
  // 30 days before today in Israel (the business's day).
  const [since, setSince] = useState(() => {
    const t = israelToday();
    return calendarDay(t.y, t.m, t.d - 30);
  });
  const [labelId, setLabelId] = useState<string | null>(null);
  const sinceMs = Date.parse(`${since}T00:00:00`);
  const valid = Number.isFinite(sinceMs);
  const input = { accountId: box.accountId, since: sinceMs, ...(labelId ? { labelId } : {}) };
  const [counted, setCounted] = useState<{ key: string; count: number; truncated: boolean } | null>(null);
  const [countErr, setCountErr] = useState<unknown>(null);
  const [counting, setCounting] = useState(false);
  const [startErr, setStartErr] = useState<unknown>(null);
  const key = JSON.stringify(input);
  const importId = params.get('import');
  const mine = params.get('mailbox') === box.accountId;

  const count = () => {
    setCounting(true);
    setCountErr(null);
    call('mailboxImportCount', input).then(
      (r) => setCounted({ key, ...r }),
      setCountErr,
    ).finally(() => setCounting(false));
  };
  const start = () => {
    const id = newImportId();
    setStartErr(null);
    // The start waits for the import (up to minutes); the progress is read apart, so it is not awaited here.
    call('mailboxImportStart', { ...input, importId: id }).catch(setStartErr);
    setParams({ mailbox: box.accountId, import: id }, { replace: true });
    setCounted(null);
  };

  if (mine && importId) return <ImportProgress importId={importId} onClose={() => setParams({}, { replace: true })} />;
  return (
    <Stack gap="xs">
      <Group grow wrap="wrap" align="flex-end">
        <TextInput type="date" label={m.mailboxes.since} value={since} onChange={(e) => setSince(e.currentTarget.value)} required />
        <Select
          label={m.mailboxes.label}
          placeholder={m.mailboxes.allMail}
          clearable
          data={(labels.data?.items ?? []).map((l) => ({ value: l.id, label: gmailLabelName(m, l) }))}
          value={labelId}
          onChange={setLabelId}
          disabled={!labels.data}
        />
      </Group>
      {labels.isError && <ErrorAlert error={labels.error} />}
      {countErr ? <ErrorAlert error={countErr} /> : null}
      {startErr ? <ErrorAlert error={startErr} /> : null}
      {counted && counted.key === key ? (
        <Alert color="blue" role="status">
          <Stack gap="xs">
            <Text data-testid="import-estimate">{fill(counted.truncated ? m.mailboxes.willLookMax : m.mailboxes.willLook, { n: number(counted.count) })}</Text>
            <Group gap="xs">
              <Button onClick={start} disabled={!counted.count}>
                {m.mailboxes.startImport}
              </Button>
              <Button variant="default" onClick={() => setCounted(null)}>
                {m.cancel}
              </Button>
            </Group>
          </Stack>
        </Alert>
      ) : (
        <Group>
          <Button variant="light" onClick={count} loading={counting} disabled={!valid || box.status !== 'connected'}>
            {m.mailboxes.importButton}
          </Button>
        </Group>
      )}
    </Stack>
  );
}

function MailboxCard({ box, connect }: { box: Mailbox; connect: ReturnType<typeof useConnect> }) {
  const { m, fill, date } = useI18n();
  const disconnect = useApiMutation('mailboxDisconnect', ['mailboxListAccounts', 'automationList']);
  return (
    <Card withBorder component="section" aria-labelledby={`mb-${box.accountId}`} data-testid="mailbox">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Title order={2} size="h4" id={`mb-${box.accountId}`} className="wrap-anywhere">
              <bdi>{box.email}</bdi>
            </Title>
            <Text size="xs" c="dimmed">
              {fill(m.mailboxes.connectedAt, { date: date(box.connectedAt), n: box.automations })}
            </Text>
          </Stack>
          <Group gap="xs">
            <Badge color={box.status === 'connected' ? 'green' : 'red'} variant="light" style={{ textTransform: 'none' }}>
              {m.mailboxes.status[box.status]}
            </Badge>
            {box.status === 'needs_reconnect' && (
              <Button size="compact-sm" loading={connect.going} onClick={connect.start}>
                {m.mailboxes.reconnect}
              </Button>
            )}
            <ActionButton op="mailboxDisconnect" size="compact-sm" variant="subtle" label={fill(m.mailboxes.disconnect, { email: box.email })} onRun={() => disconnect.mutate({ accountId: box.accountId })} />
          </Group>
        </Group>
        {box.status === 'needs_reconnect' && box.statusReason && (
          <Text size="sm" c="red.9">
            {box.statusReason}
          </Text>
        )}
        {disconnect.isError && <ErrorAlert error={disconnect.error} />}
        <ImportPanel box={box} />
      </Stack>
    </Card>
  );
}

function Boxes() {
  const { m } = useI18n();
  const boxes = useApi('mailboxListAccounts', {});
  const connect = useConnect();
  const connectButton = (
    <Button onClick={connect.start} loading={connect.going}>
      {m.mailboxes.connect}
    </Button>
  );
  return (
    <Stack>
      <Text size="sm">{m.mailboxes.connectWhat}</Text>
      {connect.err ? <ErrorAlert error={connect.err} /> : null}
      {boxes.isPending ? (
        <ListSkeleton rows={2} />
      ) : boxes.isError ? (
        <ErrorAlert error={boxes.error} onRetry={() => void boxes.refetch()} />
      ) : !boxes.data.items.length ? (
        <Empty title={m.mailboxes.emptyTitle} body={m.mailboxes.emptyBody} action={connectButton} />
      ) : (
        <>
          <Group>{connectButton}</Group>
          {boxes.data.items.map((b) => (
            <MailboxCard key={b.accountId} box={b} connect={connect} />
          ))}
        </>
      )}
    </Stack>
  );
}

function MailCard({ mail, email, onBody, onView }: { mail: Mail; email: string; onBody(): void; onView(): void }) {
  const { m, fill, date } = useI18n();
  return (
    <Card withBorder padding="sm" data-testid="mail" data-result={mail.result}>
      {/* On a phone the buttons go under the mail, which keeps the width for its sender and subject. */}
      <Group justify="space-between" wrap="wrap" align="flex-start">
        <Stack gap={2} style={{ minWidth: 0, flex: '1 1 16rem' }}>
          <Text fw={600} className="wrap-anywhere">
            <bdi>{mail.subject || m.mailboxes.noSubject}</bdi>
          </Text>
          <Text size="sm" c="dimmed" className="wrap-anywhere">
            <Address value={mail.from} /> · {date(mail.date, true)}
            {email ? <> · <Ltr>{email}</Ltr></> : ''}
          </Text>
          <Group gap={6}>
            <ResultBadge result={mail.result} />
            {mail.willRetry && (
              <Badge color="yellow" variant="light" style={{ textTransform: 'none' }}>
                {m.mailboxes.willRetry}
              </Badge>
            )}
          </Group>
          {mail.reason && (
            <Text size="xs" className="wrap-anywhere">
              {mail.reason}
            </Text>
          )}
          {mail.docIds.length > 0 && (
            <Group gap="xs">
              {mail.docIds.map((d, i) => (
                <Anchor key={d} component={Link} to={`/invoices/${d}`} size="sm">
                  {fill(m.mailboxes.invoiceN, { n: i + 1 })}
                </Anchor>
              ))}
            </Group>
          )}
        </Stack>
        <Stack gap={6} align="flex-end">
          <Button size="compact-sm" variant="default" onClick={onView}>
            {m.mailboxes.viewMail}
          </Button>
          {mail.result !== 'processing' && (
            <Button size="compact-sm" variant="light" onClick={onBody}>
              {m.mailboxes.bodyAsInvoice}
            </Button>
          )}
        </Stack>
      </Group>
    </Card>
  );
}

/**
 * One scanned mail as the mailbox holds it: headers, attachments and the body. The body is the API's
 * allow-listed HTML, shown in a sandboxed frame (no scripts, its own origin) so nothing in a mail runs here.
 */
function MailView({ seenId }: { seenId: string }) {
  const { m } = useI18n();
  const mail = useApi('mailboxMailGet', { seenId }, { retry: false });
  if (mail.isPending) return <Skeleton height={240} aria-label={m.loading} />;
  if (mail.isError) return <ErrorAlert error={mail.error} onRetry={() => void mail.refetch()} />;
  const { headers, attachments, html } = mail.data;
  return (
    <Stack gap="xs" data-testid="mail-view">
      <Text size="sm" className="wrap-anywhere">
        {m.mailboxes.from}: <Address value={headers.from} />
      </Text>
      <Text size="sm" className="wrap-anywhere">
        {m.mailboxes.date}: <bdi>{headers.date}</bdi>
      </Text>
      {attachments.length > 0 && (
        <Text size="sm" className="wrap-anywhere">
          {m.mailboxes.attachments}: {attachments.map((a, i) => (
            <span key={i}>
              {i > 0 && ', '}
              <FileName name={a} />
            </span>
          ))}
        </Text>
      )}
      <iframe title={headers.subject || m.mailboxes.noSubject} sandbox="" srcDoc={html} className="mail-body" />
    </Stack>
  );
}

function Mails() {
  const { m, fill, number } = useI18n();
  const { params, set, tokens, setTokens, pageToken } = useListParams();
  const result = (params.get('result') ?? '') as Mail['result'] | '';
  const accountId = params.get('account') ?? '';
  const importId = params.get('import') ?? '';
  const q = params.get('q') ?? '';
  const boxes = useApi('mailboxListAccounts', {});
  const list = useApi('mailsList', { ...(result ? { result } : {}), ...(accountId ? { accountId } : {}), ...(importId ? { importId } : {}), ...(q ? { q } : {}), ...(pageToken ? { pageToken } : {}), limit: 50 }, { placeholderData: (p) => p });
  const asInvoice = useApiMutation('mailboxMailAsInvoice', ['mailsList', 'invoicesList']);
  const [body, setBody] = useState<Mail | null>(null);
  const [viewing, setViewing] = useState<Mail | null>(null);
  const [remember, setRemember] = useState(false);
  const emailOf = new Map((boxes.data?.items ?? []).map((b) => [b.accountId, b.email]));
  return (
    <Stack>
      <Group grow wrap="wrap" align="flex-end">
        <SearchForm initial={q} onSearch={(v) => set('q', v)} placeholder={m.mailboxes.searchPlaceholder} />
        <Select label={m.mailboxes.result} clearable placeholder={m.all} data={RESULTS.map((r) => ({ value: r, label: m.mailboxes.results[r] }))} value={result || null} onChange={(v) => set('result', v ?? '')} />
        <Select label={m.mailboxes.mailbox} clearable placeholder={m.all} data={(boxes.data?.items ?? []).map((b) => ({ value: b.accountId, label: b.email }))} value={accountId || null} onChange={(v) => set('account', v ?? '')} />
      </Group>
      {importId && (
        <Group gap="xs" data-testid="import-filter">
          <Text size="sm">{m.mailboxes.importFilter}</Text>
          <Button size="compact-sm" variant="subtle" onClick={() => set('import', '')}>
            {m.mailboxes.importFilterClear}
          </Button>
        </Group>
      )}
      {asInvoice.data && (
        <Alert color={asInvoice.data.outcome === 'error' ? 'red' : 'green'} role="status">
          {asInvoice.data.outcome === 'imported' && asInvoice.data.docId ? (
            <Anchor component={Link} to={`/invoices/${asInvoice.data.docId}`}>
              {m.mailboxes.bodyImported}
            </Anchor>
          ) : asInvoice.data.outcome === 'duplicate' ? (
            <Text size="sm">{m.mailboxes.bodyDuplicate}</Text>
          ) : (
            <Text size="sm">{asInvoice.data.reason}</Text>
          )}
        </Alert>
      )}
      {list.isPending ? (
        <ListSkeleton />
      ) : list.isError ? (
        <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
      ) : !list.data.items.length ? (
        <Empty title={result || accountId || importId || q ? m.mailboxes.mailsEmptyFiltered : m.mailboxes.mailsEmpty} />
      ) : (
        <Stack gap="xs" data-testid="mails">
          <Text size="sm" c="dimmed">
            {fill(m.mailboxes.mailsCount, { n: (list.data.totalIsEstimate ? '~' : '') + number(list.data.total) })}
          </Text>
          {list.data.items.map((x) => (
            <MailCard key={x.seenId} mail={x} email={accountId ? '' : (emailOf.get(x.accountId) ?? '')} onBody={() => (asInvoice.reset(), setRemember(false), setBody(x))} onView={() => setViewing(x)} />
          ))}
          <Pager tokens={tokens} setTokens={setTokens} next={list.data.nextPageToken} />
        </Stack>
      )}
      <Modal opened={viewing !== null} onClose={() => setViewing(null)} title={viewing ? <bdi>{viewing.subject || m.mailboxes.noSubject}</bdi> : ''} size="lg" closeButtonProps={{ 'aria-label': m.close }}>
        {viewing && <MailView seenId={viewing.seenId} />}
      </Modal>
      <Modal opened={body !== null} onClose={() => setBody(null)} title={m.mailboxes.bodyAsInvoice} centered closeButtonProps={{ 'aria-label': m.close }}>
        {body && (
          <Stack>
            <Text size="sm">{fill(m.mailboxes.bodyExplain, { subject: body.subject || m.mailboxes.noSubject })}</Text>
            <Checkbox label={fillNodes(m.mailboxes.rememberSender, { from: <Address value={body.from} /> })} checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} />
            {asInvoice.isError && <ErrorAlert error={asInvoice.error} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setBody(null)}>
                {m.cancel}
              </Button>
              <Button loading={asInvoice.isPending} onClick={() => asInvoice.mutate({ seenId: body.seenId, rememberSender: remember }, { onSuccess: () => setBody(null) })}>
                {m.mailboxes.bodyGo}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

const TABS = ['boxes', 'mails'] as const;

/** Mailboxes: connect through the consent, labels, imports with live progress; and the scanned mails. */
export default function Mailboxes() {
  const { tab = 'boxes' } = useParams();
  const { m } = useI18n();
  const navigate = useNavigate();
  const current = tab === 'mails' ? 'mails' : 'boxes';
  return (
    <>
      <PageTitle>{m.mailboxes.title}</PageTitle>
      <Tabs value={current} onChange={(v) => v && navigate(v === 'boxes' ? '/mailboxes' : '/mailboxes/mails')} mb="md">
        <Tabs.List style={{ flexWrap: 'wrap' }}>
          {TABS.map((t) => (
            <Tabs.Tab key={t} value={t}>
              {m.mailboxes.tabs[t]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      {current === 'mails' ? <Mails /> : <Boxes />}
    </>
  );
}
