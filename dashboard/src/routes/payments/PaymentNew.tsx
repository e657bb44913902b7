import { useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Button, Card, Checkbox, Grid, Group, Radio, SegmentedControl, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ApiError } from '../../api/client.ts';
import { ErrorAlert, Money, PageTitle } from '../../ui/common.tsx';
import { MoneyInput } from '../../ui/MoneyInput.tsx';
import { NO_VAT_CURRENCIES, parseAgorot, vatOf } from '../../money.ts';
import { VatNote } from '../../ui/Amount.tsx';
import { KnownSupplier, SupplierMatches, useKnownSupplier, type SupplierRow } from './SupplierLookup.tsx';
import { fieldErrors } from '../../ui/fieldErrors.ts';

const FIELDS = ['supplierName', 'supplierPhone', 'supplierEmail', 'description', 'payMethods', 'dueDate'] as const;

type Currency = 'ILS' | 'USD' | 'EUR';

export default function PaymentNew() {
  const { m, fill } = useI18n();
  const navigate = useNavigate();
  const me = useApi('myBusinesses', {}, { staleTime: 60_000 });
  const create = useApiMutation('createPayment', ['paymentsList', 'attention', 'suppliersList']);
  const [f, setF] = useState({ supplierName: '', supplierPhone: '', supplierEmail: '', description: '', amount: '', currency: 'ILS' as Currency, vatIncluded: true, noVat: null as boolean | null, openAmount: false, invoiceRequired: true, bank: true, bit: false, channel: 'auto' as 'auto' | 'link', dueDate: '' });
  const set = <K extends keyof typeof f>(k: K, v: (typeof f)[K]) => setF((o) => ({ ...o, [k]: v }));
  // What the owner types last in the supplier's name, phone or email drives the completion list.
  const [typed, setTyped] = useState('');
  const type = (k: 'supplierName' | 'supplierPhone' | 'supplierEmail', v: string) => {
    set(k, v);
    setTyped(v);
  };
  // A known supplier's name, and its contacts where the form has none (what the owner typed stays).
  const use = (s: { name: string; phone: string | null; email: string | null }) => {
    setF((o) => ({ ...o, supplierName: s.name || o.supplierName, supplierPhone: o.supplierPhone || (s.phone ?? ''), supplierEmail: o.supplierEmail || (s.email ?? '') }));
    setTyped('');
  };
  const knownPhone = useKnownSupplier(f.supplierPhone, 'phone');
  const knownEmail = useKnownSupplier(f.supplierEmail, 'email');
  const pick = (s: SupplierRow) => {
    setF((o) => ({ ...o, supplierName: s.name, supplierPhone: s.phone ?? '', supplierEmail: s.email ?? '' }));
    setTyped('');
  };
  // "New payment to this supplier" on the supplier card opens /payments/new?supplier=<key>.
  const [params] = useSearchParams();
  const prefillKey = params.get('supplier') ?? '';
  const prefill = useApi('getSupplierContact', { supplierKey: prefillKey }, { enabled: prefillKey !== '' });
  useEffect(() => {
    if (prefill.data) use(prefill.data);
  }, [prefill.data]);
  const agorot = parseAgorot(f.amount);
  const amountOk = f.openAmount ? f.amount.trim() === '' || agorot !== null : agorot !== null && agorot > 0;
  // Required for a link-only request too (spec, createPayment): the paid notice goes to it.
  const contactOk = f.supplierPhone.trim() !== '' || f.supplierEmail.trim() !== '';
  const business = me.data?.items[0]?.businessName ?? '';
  // The API's refusal in the user's language, under the field it names; the rest in the alert.
  const { byField, rest } = fieldErrors(create.error, FIELDS);
  const general = create.isError && (!(create.error instanceof ApiError) || create.error.code !== 'invalid-argument' || rest.length > 0);
  // Until the owner says, no VAT applies to USD and EUR (the supplier is abroad), as the API defaults it.
  const noVat = f.noVat ?? NO_VAT_CURRENCIES.includes(f.currency);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!amountOk || !contactOk || !f.supplierName.trim() || !f.description.trim()) return;
    create.mutate(
      {
        supplierName: f.supplierName.trim(),
        description: f.description.trim(),
        amountAgorot: agorot ?? 0,
        currency: f.currency,
        vatIncluded: f.vatIncluded,
        // Sent only when chosen, so that the API's default (currency, exempt supplier card) applies otherwise.
        ...(f.noVat !== null ? { noVat: f.noVat } : {}),
        openAmount: f.openAmount,
        invoiceRequired: f.invoiceRequired,
        payMethods: [...(f.bank ? ['bank' as const] : []), ...(f.bit ? ['bit' as const] : [])],
        ...(f.supplierPhone.trim() ? { supplierPhone: f.supplierPhone.trim() } : {}),
        ...(f.supplierEmail.trim() ? { supplierEmail: f.supplierEmail.trim() } : {}),
        ...(f.channel === 'link' ? { channel: 'link' as const } : {}),
        ...(f.dueDate ? { dueDate: f.dueDate } : {}),
      },
      { onSuccess: (p) => navigate(`/payments/${p.id}`) },
    );
  };

  return (
    <>
      <PageTitle>{m.newPayment.title}</PageTitle>
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <form onSubmit={submit} noValidate>
            <Stack>
              <TextInput label={m.newPayment.supplierName} value={f.supplierName} onChange={(e) => type('supplierName', e.currentTarget.value)} error={byField.supplierName} required />
              <Group grow wrap="wrap">
                <TextInput label={m.newPayment.supplierPhone} type="tel" dir="ltr" value={f.supplierPhone} onChange={(e) => type('supplierPhone', e.currentTarget.value)} error={byField.supplierPhone} autoComplete="off" />
                <TextInput label={m.newPayment.supplierEmail} type="email" dir="ltr" value={f.supplierEmail} onChange={(e) => type('supplierEmail', e.currentTarget.value)} error={byField.supplierEmail} autoComplete="off" />
              </Group>
              {/* Once a typed contact is known, its hint says who it is: the completion list would show them twice. */}
              {!knownPhone && !knownEmail && <SupplierMatches q={typed} onPick={pick} />}
              <KnownSupplier kind="phone" hit={knownPhone} name={f.supplierName} onUse={use} />
              <KnownSupplier kind="email" hit={knownEmail} name={f.supplierName} onUse={use} />
              <Textarea label={m.newPayment.description} value={f.description} onChange={(e) => set('description', e.currentTarget.value)} error={byField.description} required autosize minRows={2} />
              <Group grow wrap="wrap" align="flex-start">
                <MoneyInput label={m.newPayment.amount} value={f.amount} onChange={(v) => set('amount', v)} currency={f.currency} required={!f.openAmount} />
                <Stack gap={4}>
                  <Text size="sm" fw={500} id="currency-label">
                    {m.money.currency}
                  </Text>
                  <SegmentedControl aria-labelledby="currency-label" value={f.currency} onChange={(v) => set('currency', v as Currency)} data={['ILS', 'USD', 'EUR']} />
                </Stack>
              </Group>
              <Switch label={m.money.noVat} description={m.money.noVatHint} checked={noVat} onChange={(e) => set('noVat', e.currentTarget.checked)} />
              {!noVat && <Switch label={m.money.vatIncluded} checked={f.vatIncluded} onChange={(e) => set('vatIncluded', e.currentTarget.checked)} />}
              <Switch label={m.newPayment.openAmount} checked={f.openAmount} onChange={(e) => set('openAmount', e.currentTarget.checked)} />
              <TextInput type="date" label={m.pay.dueDate} value={f.dueDate} onChange={(e) => set('dueDate', e.currentTarget.value)} error={byField.dueDate} style={{ maxWidth: 260 }} />
              <Switch label={m.newPayment.invoiceRequired} checked={f.invoiceRequired} onChange={(e) => set('invoiceRequired', e.currentTarget.checked)} />
              <Checkbox.Group label={m.newPayment.payMethods} error={byField.payMethods} value={[...(f.bank ? ['bank'] : []), ...(f.bit ? ['bit'] : [])]} onChange={(v) => setF((o) => ({ ...o, bank: v.includes('bank'), bit: v.includes('bit') }))}>
                <Group mt={4}>
                  <Checkbox value="bank" label={m.newPayment.bank} />
                  <Checkbox value="bit" label={m.newPayment.bit} />
                </Group>
              </Checkbox.Group>
              <Radio.Group label={m.newPayment.channel} value={f.channel} onChange={(v) => set('channel', v as 'auto' | 'link')}>
                <Stack gap={6} mt={4}>
                  <Radio value="auto" label={m.newPayment.channelAuto} />
                  <Radio value="link" label={m.newPayment.channelLink} description={m.newPayment.channelLinkHint} />
                </Stack>
              </Radio.Group>
              {!contactOk && (
                <Text size="sm" c="red.9">
                  {m.newPayment.contactNeeded}
                </Text>
              )}
              {general && <ErrorAlert error={create.error} />}
              <Button type="submit" loading={create.isPending} disabled={!amountOk || !contactOk || !f.supplierName.trim() || !f.description.trim()}>
                {f.channel === 'link' ? m.newPayment.submitLink : m.newPayment.submit}
              </Button>
            </Stack>
          </form>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <section aria-labelledby="preview-title">
            <Title order={2} size="h4" id="preview-title" mb="xs">
              {m.newPayment.preview}
            </Title>
            <Card withBorder radius="md" padding="md" data-testid="preview">
              <Stack gap="xs">
                <Text className="wrap-anywhere">{fill(m.newPayment.previewAsks, { business: business || '…', description: f.description || '…' })}</Text>
                {agorot ? (
                  <>
                    <Text fw={700} size="xl">
                      <Money agorot={vatOf(agorot, f.vatIncluded, noVat).total} currency={f.currency} />
                    </Text>
                    <VatNote agorot={agorot} currency={f.currency} vatIncluded={f.vatIncluded} noVat={noVat} />
                  </>
                ) : (
                  <Text c="dimmed">{f.openAmount ? m.newPayment.openAmount : '—'}</Text>
                )}
                <Text size="sm">
                  {m.newPayment.previewEnter}
                  {f.invoiceRequired ? ` ${m.newPayment.previewInvoice}` : ''}
                </Text>
              </Stack>
            </Card>
          </section>
        </Grid.Col>
      </Grid>
    </>
  );
}
