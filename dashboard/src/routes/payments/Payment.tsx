import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { Alert, Anchor, Badge, Button, Card, CopyButton, FileInput, Group, Modal, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { fileToBase64, useApi, useApiMutation } from '../../ui/api.ts';
import { payoutText, serverText } from '../../ui/serverText.ts';
import { ErrorAlert, ListSkeleton, Money, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { VatNote } from '../../ui/Amount.tsx';
import { MoneyInput } from '../../ui/MoneyInput.tsx';
import { StatusBadge } from '../../ui/cards.tsx';
import { agorotToInput, parseAgorot } from '../../money.ts';
import type { OperationName } from '../../api/client.ts';
import { FileName } from '../../ui/FileName.tsx';
import { fieldErrors } from '../../ui/fieldErrors.ts';
import { fillNodes } from '../../ui/fillNodes.tsx';
import { Ltr, Masked, Steps } from '../../ui/Ltr.tsx';
import { dayText } from '../payruns/runParts.tsx';
import { ApprovalCard } from './Approval.tsx';

const AFTER: OperationName[] = ['paymentGet', 'paymentsList', 'attention', 'listActivity'];

function FilePreview({ f }: { f: { fileName: string; contentType: string; url: string | null } }) {
  if (!f.url) return <Text size="sm"><FileName name={f.fileName} /></Text>;
  return (
    <Stack gap={4}>
      {f.contentType.startsWith('image/') ? <img src={f.url} alt={f.fileName} className="preview-image" style={{ maxHeight: 240 }} /> : null}
      <Anchor href={f.url} target="_blank" rel="noopener" className="wrap-anywhere">
        <FileName name={f.fileName} />
      </Anchor>
    </Stack>
  );
}

export default function Payment() {
  const { id = '' } = useParams();
  const { m, fill, date, lang } = useI18n();
  const q = useApi('paymentGet', { paymentId: id }, { refetchInterval: 10_000 });
  const [reveal, setReveal] = useState(false);
  const [paying, setPaying] = useState(false);
  const [proof, setProof] = useState<File | null>(null);
  const [revertTo, setRevertTo] = useState<string | null>(null);
  const [reverting, setReverting] = useState(false);
  const [editing, setEditing] = useState(false);
  const [edit, setEdit] = useState({ amount: '', invoiceRequired: true, supplierPhone: '', supplierEmail: '', dueDate: '' });
  const markPaid = useApiMutation('markPaid', AFTER);
  const revert = useApiMutation('revertPaid', AFTER);
  const cancel = useApiMutation('cancelPayment', AFTER);
  const resend = useApiMutation('resendPayment', AFTER);
  const settings = useApiMutation('updatePaymentSettings', AFTER);
  const failed = [markPaid, revert, cancel, resend, settings].find((x) => x.isError);
  const dueError = fieldErrors(settings.error, ['dueDate'] as const).byField.dueDate;

  if (q.isPending)
    return (
      <>
        <PageTitle>{m.loading}</PageTitle>
        <ListSkeleton rows={4} />
      </>
    );
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} />;
  const p = q.data;
  const open = p.status !== 'paid' && p.status !== 'canceled';

  const doMarkPaid = async () => {
    const file = proof ? { fileName: proof.name, mimeType: proof.type || 'application/pdf', dataBase64: await fileToBase64(proof) } : undefined;
    markPaid.mutate({ paymentId: p.id, ...(file ? { proof: file } : {}) }, { onSuccess: () => setPaying(false) });
  };

  return (
    <>
      <PageTitle actions={<StatusBadge status={p.status} channel={p.channel} />}>{fill(m.payment.title, { name: p.supplierName })}</PageTitle>
      <Stack gap="lg">
        {p.payoutChanged && (
          <Alert color="red" variant="filled" title={m.home.flaggedTitle} role="alert">
            {m.home.flaggedBody}
            {p.payoutChange && (
              <Text size="sm" mt="xs" data-testid="payout-change">
                <Steps steps={[payoutText(p.payoutChange.previous, m), payoutText(p.payoutChange.filed, m)]} />
              </Text>
            )}
          </Alert>
        )}
        {p.readingMismatch && (
          <Alert color="orange" title={m.payment.mismatchTitle} data-testid="reading-mismatch">
            {p.readingMismatch.total && <Text size="sm">{m.payment.mismatchTotal}</Text>}
            {p.readingMismatch.currency && <Text size="sm">{m.payment.mismatchCurrency}</Text>}
          </Alert>
        )}
        {failed && <ErrorAlert error={failed.error} />}
        <Card withBorder>
          <Stack gap="xs">
            <Text fw={700} size="xl">
              {p.openAmount && !p.amountAgorot ? m.newPayment.openAmount : <Money agorot={p.totalAgorot} currency={p.currency} />}
            </Text>
            {p.amountAgorot > 0 && <VatNote agorot={p.amountAgorot} currency={p.currency} vatIncluded={p.vatIncluded} noVat={p.noVat} />}
            <Text className="wrap-anywhere">{p.description}</Text>
            <Text size="sm" fw={p.dueDate ? 600 : undefined} c={p.dueDate ? undefined : 'dimmed'} data-testid="due-date">
              {p.dueDate ? fill(m.pay.dueDateLine, { date: dayText(date, p.dueDate) }) : m.pay.dueDateNone}
            </Text>
            <Text size="sm" c="dimmed">
              {fill(m.payment.timeline, { created: date(p.createdAt, true) })}
              {p.paidAt ? ` · ${fill(m.payment.paidAt, { date: date(p.paidAt, true) })}` : ''}
            </Text>
            <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
              <Text size="sm" fw={500}>
                {m.payment.link}:
              </Text>
              <Anchor href={p.link} target="_blank" rel="noopener" size="sm" className="wrap-anywhere" data-testid="supplier-link">
                {p.link}
              </Anchor>
              <CopyButton value={p.link}>
                {({ copied, copy }) => (
                  <Button size="compact-xs" variant="subtle" onClick={copy} style={{ flexShrink: 0 }}>
                    {copied ? m.copied : m.copy}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        </Card>

        <ApprovalCard paymentId={p.id} approval={p.approval} open={open} runId={p.runId} />

        <Group gap="xs" wrap="wrap">
          {open && (
            <Button color="green" onClick={() => setPaying(true)}>
              {m.payment.markPaid}
            </Button>
          )}
          {p.status === 'paid' && (
            <Stack gap={4}>
              <Group gap="xs" wrap="wrap">
                <Select
                  aria-label={m.payment.revertTo}
                  placeholder={m.payment.revertTo}
                  data={(['sent', 'awaiting_invoice', 'ready'] as const).map((s) => ({ value: s, label: m.status[s] }))}
                  value={revertTo}
                  onChange={setRevertTo}
                  w={170}
                />
                <Button variant="light" disabled={!revertTo} loading={revert.isPending} onClick={() => setReverting(true)} aria-describedby={revertTo ? undefined : 'revert-hint'}>
                  {m.payment.revert}
                </Button>
              </Group>
              {!revertTo && (
                <Text size="sm" c="dimmed" id="revert-hint" data-testid="revert-hint">
                  {m.payment.revertHint}
                </Text>
              )}
            </Stack>
          )}
          {open && p.supplierPhone && <ActionButton op="resendPayment" label={`${m.payment.resend} ${m.payment.resendWa}`} loading={resend.isPending} onRun={() => resend.mutate({ paymentId: p.id, channel: 'wa' })} />}
          {open && p.supplierEmail && <ActionButton op="resendPayment" label={`${m.payment.resend} ${m.payment.resendEm}`} loading={resend.isPending} onRun={() => resend.mutate({ paymentId: p.id, channel: 'em' })} />}
          {open && (
            <Button
              variant="default"
              onClick={() => {
                setEdit({ amount: agorotToInput(p.amountAgorot), invoiceRequired: p.invoiceRequired, supplierPhone: p.supplierPhone ?? '', supplierEmail: p.supplierEmail ?? '', dueDate: p.dueDate ?? '' });
                setEditing(true);
              }}
            >
              {m.payment.settings}
            </Button>
          )}
          {open && <ActionButton op="cancelPayment" label={m.payment.cancel} loading={cancel.isPending} onRun={() => cancel.mutate({ paymentId: p.id })} />}
          <Button component={Link} to={`/recurring?from=${encodeURIComponent(p.id)}`} variant="default" data-testid="make-recurring">
            {m.recurring.makeRecurring}
          </Button>
        </Group>

        {(p.status === 'sent' || p.reminders.sent.length > 0) && (
          <Card withBorder data-testid="reminders">
            <Title order={2} size="h4" mb="xs">
              {m.recurring.remindersTitle}
            </Title>
            <Stack gap={4}>
              {p.reminders.sent.length ? (
                p.reminders.sent.map((r) => (
                  <Text key={r.step} size="sm">
                    {fill(m.recurring.reminderSent, { step: r.step, date: date(r.at, true) })}
                  </Text>
                ))
              ) : (
                <Text size="sm" c="dimmed">
                  {m.recurring.reminderNone}
                </Text>
              )}
              {p.status === 'sent' && (
                <Text size="sm" fw={p.reminders.next ? 600 : undefined} c={p.reminders.next ? undefined : 'dimmed'} data-testid="reminder-next">
                  {p.reminders.next ? fill(m.recurring.reminderNext, { date: dayText(date, p.reminders.next) }) : m.recurring.reminderNoNext}
                </Text>
              )}
            </Stack>
          </Card>
        )}

        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              {m.payment.payout}
            </Title>
            {!p.payout ? (
              <Text c="dimmed">{m.payment.noPayout}</Text>
            ) : (
              <Stack gap={4}>
                {p.payout.method === 'bank' ? (
                  <>
                    <Text dir="auto" data-testid="payout">
                      {fillNodes(m.payment.bank, { bank: p.payout.bankCode ?? '', branch: p.payout.bankBranch ?? '', account: reveal ? <Ltr>{p.payout.bankAccount ?? ''}</Ltr> : <Masked value={p.payout.bankAccount ?? ''} /> })}
                    </Text>
                    <Text>{fill(m.payment.beneficiary, { name: p.payout.bankBeneficiary ?? '' })}</Text>
                  </>
                ) : (
                  <Text>{fillNodes(m.payment.bit, { phone: reveal ? <Ltr>{p.payout.bitPhone ?? ''}</Ltr> : <Masked value={p.payout.bitPhone ?? ''} /> })}</Text>
                )}
                <Group>
                  <Button size="compact-sm" variant="subtle" onClick={() => setReveal((r) => !r)} aria-pressed={reveal}>
                    {reveal ? m.payment.hide : m.payment.reveal}
                  </Button>
                </Group>
              </Stack>
            )}
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              {m.payment.ita}
            </Title>
            <Text>{p.itaVerdict ? m.payment.itaVerdict[p.itaVerdict] : m.payment.itaNone}</Text>
            {p.invoiceNumber && <Text size="sm">#{p.invoiceNumber}</Text>}
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              {m.payment.invoices}
            </Title>
            {p.invoices.length ? (
              <Stack gap="sm">
                {p.invoices.map((f) => (
                  <FilePreview key={f.fileId} f={f} />
                ))}
              </Stack>
            ) : (
              <Text c="dimmed">{m.payment.noInvoices}</Text>
            )}
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              {m.payment.proof}
            </Title>
            {p.proof ? <FilePreview f={p.proof} /> : <Text c="dimmed">—</Text>}
          </Card>
        </SimpleGrid>

        <Card withBorder>
          <Title order={2} size="h4" mb="xs">
            {m.payment.messages}
          </Title>
          {p.messages.length ? (
            <Stack gap="xs">
              {p.messages.map((msg) => (
                <Group key={msg.id} justify="space-between" wrap="wrap">
                  <Text size="sm" className="wrap-anywhere">
                    {msg.channel === 'email' ? '✉' : '☎'} <Ltr>{msg.to}</Ltr> · {date(msg.createdAt, true)}
                  </Text>
                  <Badge color={msg.status === 'delivered' ? 'green' : msg.status === 'failed' ? 'red' : msg.status === 'undelivered' ? 'orange' : 'gray'} variant="light" style={{ textTransform: 'none' }}>
                    {m.payment.messageState[msg.status]}
                  </Badge>
                  {/* Not sent (retried for a day, or refused): the link goes again on the same channel. */}
                  {open && (msg.status === 'undelivered' || msg.status === 'failed') && (msg.channel === 'email' ? p.supplierEmail : p.supplierPhone) && (
                    <ActionButton
                      op="resendPayment"
                      size="xs"
                      label={`${m.payment.resend} ${msg.channel === 'email' ? m.payment.resendEm : m.payment.resendWa}`}
                      loading={resend.isPending}
                      onRun={() => resend.mutate({ paymentId: p.id, channel: msg.channel === 'email' ? 'em' : 'wa' })}
                    />
                  )}
                  {msg.lastError && (
                    <Text size="xs" c="dimmed" w="100%" className="wrap-anywhere">
                      {serverText(msg.lastError, m, lang)}
                    </Text>
                  )}
                </Group>
              ))}
            </Stack>
          ) : (
            <Text c="dimmed">{m.payment.noMessages}</Text>
          )}
        </Card>
      </Stack>

      <Modal opened={reverting} onClose={() => setReverting(false)} title={m.payment.revertTitle} centered closeButtonProps={{ 'aria-label': m.close }}>
        <Stack>
          <Text size="sm">{fill(m.payment.revertBody, { status: revertTo ? m.status[revertTo as 'sent'] : '' })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setReverting(false)}>
              {m.cancel}
            </Button>
            <Button
              // red.9: white on Mantine's default red is 3.3:1, under WCAG AA's 4.5:1.
              color="red.9"
              onClick={() => {
                setReverting(false);
                revert.mutate({ paymentId: p.id, status: revertTo as 'sent' }, { onSuccess: () => setRevertTo(null) });
              }}
            >
              {m.payment.revert}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={paying} onClose={() => setPaying(false)} title={m.payment.markPaidTitle} centered closeButtonProps={{ 'aria-label': m.close }}>
        <Stack>
          <Text size="sm">{m.payment.markPaidBody}</Text>
          <FileInput label={m.payment.proofFile} accept="application/pdf,image/png,image/jpeg" value={proof} onChange={setProof} clearable data-testid="proof-input" />
          {markPaid.isError && <ErrorAlert error={markPaid.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setPaying(false)}>
              {m.cancel}
            </Button>
            <Button color="green" loading={markPaid.isPending} onClick={() => void doMarkPaid()}>
              {m.payment.markPaid}
            </Button>
          </Group>
        </Stack>
      </Modal>

      <Modal opened={editing} onClose={() => setEditing(false)} title={m.payment.settings} centered closeButtonProps={{ 'aria-label': m.close }}>
        <Stack>
          <MoneyInput label={m.money.amount} value={edit.amount} onChange={(v) => setEdit((e) => ({ ...e, amount: v }))} currency={p.currency} />
          <TextInput label={m.newPayment.supplierPhone} dir="ltr" value={edit.supplierPhone} onChange={(e) => setEdit({ ...edit, supplierPhone: e.currentTarget.value })} />
          <TextInput label={m.newPayment.supplierEmail} dir="ltr" value={edit.supplierEmail} onChange={(e) => setEdit({ ...edit, supplierEmail: e.currentTarget.value })} />
          <Switch label={m.newPayment.invoiceRequired} checked={edit.invoiceRequired} onChange={(e) => setEdit({ ...edit, invoiceRequired: e.currentTarget.checked })} />
          <TextInput type="date" label={m.pay.dueDate} value={edit.dueDate} onChange={(e) => setEdit({ ...edit, dueDate: e.currentTarget.value })} error={dueError} data-testid="due-input" />
          {settings.isError && !dueError && <ErrorAlert error={settings.error} />}
          <Button
            loading={settings.isPending}
            disabled={parseAgorot(edit.amount) === null}
            onClick={() =>
              settings.mutate(
                {
                  paymentId: p.id,
                  amountAgorot: parseAgorot(edit.amount)!,
                  invoiceRequired: edit.invoiceRequired,
                  ...(edit.supplierPhone.trim() ? { supplierPhone: edit.supplierPhone.trim() } : {}),
                  ...(edit.supplierEmail.trim() ? { supplierEmail: edit.supplierEmail.trim() } : {}),
                  // Sent when changed: a day, or null to clear it.
                  ...(edit.dueDate !== (p.dueDate ?? '') ? { dueDate: edit.dueDate || null } : {}),
                },
                { onSuccess: () => setEditing(false) },
              )
            }
          >
            {m.save}
          </Button>
        </Stack>
      </Modal>
    </>
  );
}
