import { useEffect, useState } from 'react';
import { Button, Card, Radio, Stack, Text, TextInput, Title, Group } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton } from '../../ui/common.tsx';
import { MoneyInput } from '../../ui/MoneyInput.tsx';
import { fieldErrors } from '../../ui/fieldErrors.ts';
import { agorotToInput, parseAgorot } from '../../money.ts';

type Mode = 'off' | 'all' | 'from';
const MASAV = [
  ['masavInstitutionId', 8],
  ['masavSenderId', 5],
] as const;
type MasavField = (typeof MASAV)[number][0];

/** Which payments need an admin's approval (approvalPolicySet), admin only. */
function Policy({ admin }: { admin: boolean }) {
  const { m } = useI18n();
  const t = m.pay.policy;
  const q = useApi('approvalPolicyGet', {});
  const save = useApiMutation('approvalPolicySet', ['approvalPolicyGet', 'paymentsList', 'paymentGet']);
  const [mode, setMode] = useState<Mode>('off');
  const [amount, setAmount] = useState('');
  const [approvers, setApprovers] = useState<'1' | '2'>('1');
  useEffect(() => {
    if (!q.data) return;
    const th = q.data.thresholdAgorot;
    setMode(th === null ? 'off' : th === 0 ? 'all' : 'from');
    setAmount(th ? agorotToInput(th) : '');
    setApprovers(String(q.data.approvalsRequired) as '1');
  }, [q.data]);
  if (q.isPending) return <ListSkeleton rows={2} />;
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} />;
  const agorot = parseAgorot(amount);
  const amountOk = mode !== 'from' || (agorot !== null && agorot > 0);
  const { byField } = fieldErrors(save.error, ['thresholdAgorot', 'approvalsRequired'] as const);
  return (
    <Card withBorder component="section" aria-labelledby="policy-title">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!amountOk) return;
          save.mutate({ thresholdAgorot: mode === 'off' ? null : mode === 'all' ? 0 : agorot!, approvalsRequired: approvers === '2' ? 2 : 1 });
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4" id="policy-title">
            {t.title}
          </Title>
          <Text size="sm">{t.intro}</Text>
          <Radio.Group label={t.mode} value={mode} onChange={(v) => (setMode(v as Mode), save.reset())} error={byField.thresholdAgorot && mode !== 'from' ? byField.thresholdAgorot : undefined}>
            <Stack gap={6} mt={4}>
              {(['off', 'all', 'from'] as const).map((k) => (
                <Radio key={k} value={k} label={t.modes[k]} disabled={!admin} />
              ))}
            </Stack>
          </Radio.Group>
          {mode === 'from' && (
            <Stack gap={4}>
              <MoneyInput label={t.threshold} value={amount} onChange={setAmount} currency="ILS" required />
              <Text size="xs" c="dimmed">
                {t.thresholdHint}
              </Text>
              {byField.thresholdAgorot && (
                <Text size="sm" c="red.9">
                  {byField.thresholdAgorot}
                </Text>
              )}
            </Stack>
          )}
          {mode !== 'off' && (
            <Radio.Group label={t.approvers} value={approvers} onChange={(v) => setApprovers(v as '1')} error={byField.approvalsRequired}>
              <Group gap="md" mt={4}>
                <Radio value="1" label={t.approversN.one} disabled={!admin} />
                <Radio value="2" label={t.approversN.two} disabled={!admin} />
              </Group>
            </Radio.Group>
          )}
          {save.isError && !byField.thresholdAgorot && !byField.approvalsRequired && <ErrorAlert error={save.error} />}
          {admin && (
            <Group>
              <Button type="submit" loading={save.isPending} disabled={!amountOk}>
                {m.save}
              </Button>
              {save.isSuccess && (
                <Text size="sm" fw={600} role="status">
                  {t.saved}
                </Text>
              )}
            </Group>
          )}
        </Stack>
      </form>
    </Card>
  );
}

/** The MASAV institution codes (updateBusiness), each checked as typed and by the server. */
function Masav({ admin }: { admin: boolean }) {
  const { m, fill } = useI18n();
  const t = m.pay.masav;
  const b = useApi('getBusiness', {});
  const save = useApiMutation('updateBusiness', ['getBusiness']);
  const [f, setF] = useState<Record<MasavField, string>>({ masavInstitutionId: '', masavSenderId: '' });
  const [tried, setTried] = useState(false);
  useEffect(() => {
    if (b.data) setF({ masavInstitutionId: b.data.masavInstitutionId, masavSenderId: b.data.masavSenderId });
  }, [b.data]);
  if (b.isPending) return <ListSkeleton rows={2} />;
  if (b.isError) return <ErrorAlert error={b.error} onRetry={() => void b.refetch()} />;
  const { byField } = fieldErrors(save.error, MASAV.map(([k]) => k));
  // An empty field is allowed (no MASAV file then); anything typed must be exactly its digits.
  const local = (k: MasavField, n: number) => (f[k].trim() !== '' && !new RegExp(`^\\d{${n}}$`).test(f[k].trim()) ? fill(t.digits, { n }) : undefined);
  const bad = MASAV.some(([k, n]) => local(k, n));
  return (
    <Card withBorder component="section" aria-labelledby="masav-title">
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          if (bad) return;
          save.mutate({ masavInstitutionId: f.masavInstitutionId.trim(), masavSenderId: f.masavSenderId.trim() });
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4" id="masav-title">
            {t.title}
          </Title>
          <Text size="sm">{t.intro}</Text>
          {MASAV.map(([k, n]) => (
            <TextInput
              key={k}
              label={k === 'masavInstitutionId' ? t.institutionId : t.senderId}
              value={f[k]}
              onChange={(e) => (setF({ ...f, [k]: e.currentTarget.value }), save.reset())}
              inputMode="numeric"
              dir="ltr"
              maxLength={n + 4}
              disabled={!admin}
              error={(tried && local(k, n)) || byField[k]}
              style={{ maxWidth: 320 }}
            />
          ))}
          {save.isError && !Object.keys(byField).length && <ErrorAlert error={save.error} />}
          {admin && (
            <Group>
              <Button type="submit" loading={save.isPending}>
                {m.save}
              </Button>
              {save.isSuccess && (
                <Text size="sm" fw={600} role="status">
                  {t.saved}
                </Text>
              )}
            </Group>
          )}
        </Stack>
      </form>
    </Card>
  );
}

/** Settings → payments: the approval policy and the MASAV codes; admins change them, users see them. */
export default function SettingsPay() {
  const { m } = useI18n();
  const b = useApi('getBusiness', {});
  const admin = b.data?.role === 'admin';
  return (
    <Stack>
      {b.data && !admin && (
        <Text c="dimmed" data-testid="pay-admin-only">
          {m.pay.adminOnly}
        </Text>
      )}
      <Policy admin={admin} />
      <Masav admin={admin} />
    </Stack>
  );
}
