import { useState } from 'react';
import { Link } from 'react-router';
import { Anchor, Badge, Button, Card, Group, Modal, Stack, Text, Textarea, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert } from '../../ui/common.tsx';
import type { ApprovalView } from '../payruns/payApi.ts';

const STATE_COLOR: Record<ApprovalView['state'], string> = { not_required: 'gray', pending: 'yellow', approved: 'green', rejected: 'red' };
const AFTER = ['paymentGet', 'paymentsList', 'attention', 'listActivity'] as const;

/**
 * The payment's approval: its state, who approved and when, a rejection's reason, what made an earlier approval
 * stale; Approve (an optional note) and Reject (a reason) for admins. The server's refusal (approving a payment one
 * created oneself) shows in the UI's language through the error reasons.
 */
export function ApprovalCard({ paymentId, approval, open, runId }: { paymentId: string; approval: ApprovalView; open: boolean; runId: string | null | undefined }) {
  const { m, fill, date } = useI18n();
  const business = useApi('getBusiness', {});
  const admin = business.data?.role === 'admin';
  const approve = useApiMutation('paymentApprove', [...AFTER]);
  const reject = useApiMutation('paymentReject', [...AFTER]);
  const [asking, setAsking] = useState<'approve' | 'reject' | null>(null);
  const [note, setNote] = useState('');
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  const a = approval;
  const t = m.pay.approval;
  const failed = [approve, reject].find((x) => x.isError);
  const close = () => {
    setAsking(null);
    setTried(false);
  };
  const canAct = admin && open && a.required && a.state !== 'approved';
  // With the policy off and nothing recorded, the card would only say so: it stays away.
  if (!a.required && !a.approvals.length && !a.rejection && !a.staleBecause.length && !runId) return null;
  return (
    <Card withBorder component="section" aria-labelledby="approval-title" data-testid="approval">
      <Group justify="space-between" wrap="wrap" gap="xs" mb="xs">
        <Title order={2} size="h4" id="approval-title">
          {t.title}
        </Title>
        <Badge color={STATE_COLOR[a.state]} variant="light" style={{ textTransform: 'none' }} data-testid="approval-state">
          {t.state[a.state]}
        </Badge>
      </Group>
      <Stack gap={4}>
        {a.needed > 1 && a.state !== 'not_required' && <Text size="sm">{fill(t.needed, { needed: a.needed, given: a.approvals.length })}</Text>}
        {a.approvals.map((x) => (
          <Text size="sm" key={x.by + x.at} data-testid="approved-by">
            {fill(t.approvedBy, { email: '\u2068' + x.byEmail + '\u2069', date: date(x.at, true) })}
            {x.note ? ` · ${fill(t.noteLine, { note: x.note })}` : ''}
          </Text>
        ))}
        {a.rejection && (
          <Stack gap={0} data-testid="rejection">
            <Text size="sm">{fill(t.rejectedBy, { email: '\u2068' + a.rejection.byEmail + '\u2069', date: date(a.rejection.at, true) })}</Text>
            <Text size="sm" fw={600} className="wrap-anywhere">
              {fill(t.reasonLine, { reason: a.rejection.reason })}
            </Text>
          </Stack>
        )}
        {a.staleBecause.length > 0 && (
          <Text size="sm" c="red.9" fw={600} data-testid="approval-stale">
            {fill(t.stale, { what: a.staleBecause.map((w) => t.staleWords[w]).join(', ') })}
          </Text>
        )}
        {runId && (
          <Text size="sm">
            {t.inRun}{' '}
            <Anchor component={Link} to={`/pay/runs/${runId}`}>
              {t.openRun}
            </Anchor>
          </Text>
        )}
        {failed && !asking && <ErrorAlert error={failed.error} />}
        {canAct && (
          <Group gap="xs" mt="xs" wrap="wrap">
            <Button onClick={() => (approve.reset(), setAsking('approve'))} loading={approve.isPending}>
              {t.approve}
            </Button>
            {a.state !== 'rejected' && (
              <Button color="red.9" variant="outline" onClick={() => (reject.reset(), setAsking('reject'))} loading={reject.isPending}>
                {t.reject}
              </Button>
            )}
          </Group>
        )}
        {business.data && !admin && a.required && a.state !== 'approved' && open && (
          <Text size="sm" c="dimmed">
            {t.adminOnly}
          </Text>
        )}
      </Stack>

      <Modal opened={asking === 'approve'} onClose={close} title={t.approveTitle} centered closeButtonProps={{ 'aria-label': m.close }}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            approve.mutate({ paymentId, ...(note.trim() ? { note: note.trim() } : {}) }, { onSuccess: () => (close(), setNote('')) });
          }}
        >
          <Stack>
            <Textarea label={t.note} value={note} onChange={(e) => setNote(e.currentTarget.value)} autosize minRows={2} maxLength={500} />
            {approve.isError && <ErrorAlert error={approve.error} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {m.cancel}
              </Button>
              <Button type="submit" loading={approve.isPending}>
                {t.approve}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      <Modal opened={asking === 'reject'} onClose={close} title={t.rejectTitle} centered closeButtonProps={{ 'aria-label': m.close }}>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            setTried(true);
            if (!reason.trim()) return;
            reject.mutate({ paymentId, reason: reason.trim() }, { onSuccess: () => (close(), setReason('')) });
          }}
        >
          <Stack>
            <Text size="sm">{t.rejectHint}</Text>
            <Textarea label={t.reason} value={reason} onChange={(e) => setReason(e.currentTarget.value)} required autosize minRows={2} maxLength={500} error={tried && !reason.trim() ? t.reasonNeeded : undefined} />
            {reject.isError && <ErrorAlert error={reject.error} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {m.cancel}
              </Button>
              <Button type="submit" color="red.9" loading={reject.isPending}>
                {t.reject}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Card>
  );
}
