import { useState, type ReactNode } from 'react';
import { Alert, Button, Card, Group, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, Money } from '../../ui/common.tsx';
import { MoneyInput } from '../../ui/MoneyInput.tsx';
import { fieldErrors } from '../../ui/fieldErrors.ts';
import { agorotToInput, parseAgorot } from '../../money.ts';
import type { Output } from '../../api/client.ts';

type Doc = Output<'invoiceGet'>;
const FIELDS = ['issuerName', 'issuerId', 'number', 'date', 'totalAgorot', 'vatAgorot', 'currency'] as const;
type Field = (typeof FIELDS)[number];
const AMOUNTS: readonly Field[] = ['totalAgorot', 'vatAgorot'];
const CURRENCIES = ['ILS', 'USD', 'EUR'] as const;

function valueOf(d: Doc, f: Field): string | number | null {
  const r = d.reading;
  if (!r) return null;
  if (f === 'issuerName') return r.issuer.name;
  if (f === 'issuerId') return r.issuer.vatId;
  if (f === 'totalAgorot') return r.totalMinor;
  if (f === 'vatAgorot') return r.vatMinor;
  return r[f];
}

/** An email or amount inside a sentence of the other direction keeps its own order (first-strong isolate). */
const isolate = (s: string) => `\u2068${s}\u2069`;

const asInput = (f: Field, v: string | number | null) => (v === null ? '' : AMOUNTS.includes(f) ? agorotToInput(Number(v)) : String(v));

/** What the AI read, each field corrected by hand marked with who and when; "correct the reading" edits them in place. */
export function ReadingCard({ d }: { d: Doc }) {
  const { m, fill, date, money } = useI18n();
  const update = useApiMutation('updateInvoiceDoc', ['invoiceGet', 'invoicesList', 'attention', 'spendSummary']);
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState<Record<Field, string>>({} as Record<Field, string>);
  const [restore, setRestore] = useState<Set<Field>>(new Set());
  const r = d.reading;
  const currency = (editing ? form.currency : r?.currency) || 'ILS';
  const label: Record<Field, string> = {
    issuerName: m.readingFix.issuerName,
    issuerId: m.readingFix.issuerId,
    number: m.invoices.number,
    date: m.invoices.date,
    totalAgorot: m.invoices.total,
    vatAgorot: m.invoices.vat,
    currency: m.readingFix.currency,
  };
  const shown = (f: Field, v: string | number | null) =>
    v === null || v === '' ? '—' : AMOUNTS.includes(f) ? money(Number(v), r?.currency || 'ILS') : f === 'date' ? date(String(v)) : String(v);

  const start = () => {
    setForm(Object.fromEntries(FIELDS.map((f) => [f, asInput(f, valueOf(d, f))])) as Record<Field, string>);
    setRestore(new Set());
    update.reset();
    setEditing(true);
  };
  const changes = () => {
    const out: Record<string, string | number | null> = {};
    for (const f of FIELDS) {
      if (restore.has(f)) {
        out[f] = null;
        continue;
      }
      const typed = form[f].trim();
      if (typed === '' || typed === asInput(f, valueOf(d, f))) continue;
      out[f] = AMOUNTS.includes(f) ? parseAgorot(typed) : typed;
    }
    return out;
  };
  const badAmount = AMOUNTS.some((f) => form[f]?.trim() && parseAgorot(form[f]) === null);
  const errors = fieldErrors(update.error, FIELDS.map((f) => `reading.${f}` as const));
  const fieldError = (f: Field) => errors.byField[`reading.${f}`];

  const Mark = ({ f }: { f: Field }) => {
    const c = d.corrections[f];
    if (!c) return null;
    return (
      <Text size="xs" c="dimmed" data-testid={`corrected-${f}`}>
        {fill(m.readingFix.corrected, { by: isolate(c.by), date: date(c.at) })} · {fill(m.readingFix.aiRead, { value: isolate(shown(f, c.ai)) })}
      </Text>
    );
  };
  const Line = ({ f, children }: { f: Field; children: ReactNode }) => (
    <div>
      <Text>
        {label[f]}: {children}
      </Text>
      <Mark f={f} />
    </div>
  );

  return (
    <Card withBorder data-testid="reading">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} size="h4">
          {editing ? m.readingFix.title : m.invoices.aiReading}
        </Title>
        {!editing && (
          <Button size="xs" variant="default" onClick={start}>
            {m.readingFix.correct}
          </Button>
        )}
      </Group>
      {d.vatIsTotal && (
        <Alert color="orange" mb="xs" data-testid="vat-is-total">
          {m.readingFix.vatIsTotal}
        </Alert>
      )}
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const reading = changes();
            if (!Object.keys(reading).length) return setEditing(false);
            update.mutate({ docId: d.docId, reading }, { onSuccess: () => setEditing(false) });
          }}
        >
          <Stack gap="xs">
            {errors.rest.length > 0 && <ErrorAlert error={update.error} />}
            {FIELDS.map((f) => {
              const common = { value: form[f], onChange: (v: string) => setForm((cur) => ({ ...cur, [f]: v })) };
              const input = AMOUNTS.includes(f) ? (
                <MoneyInput label={label[f]} currency={currency} {...common} />
              ) : f === 'currency' ? (
                <NativeSelect label={label[f]} data={[{ value: '', label: '—', disabled: true }, ...CURRENCIES.map((c) => ({ value: c, label: c }))]} value={form[f]} onChange={(e) => common.onChange(e.currentTarget.value)} error={fieldError(f)} />
              ) : (
                <TextInput
                  label={label[f]}
                  type={f === 'date' ? 'date' : 'text'}
                  dir={f === 'issuerName' ? undefined : 'ltr'}
                  value={form[f]}
                  onChange={(e) => common.onChange(e.currentTarget.value)}
                  error={fieldError(f)}
                />
              );
              return (
                <div key={f}>
                  {input}
                  {AMOUNTS.includes(f) && fieldError(f) && (
                    <Text size="xs" c="red.8">
                      {fieldError(f)}
                    </Text>
                  )}
                  {d.corrections[f] &&
                    (restore.has(f) ? (
                      <Text size="xs" c="dimmed">
                        {m.readingFix.restored}
                      </Text>
                    ) : (
                      <Button size="compact-xs" variant="subtle" onClick={() => setRestore(new Set([...restore, f]))}>
                        {m.readingFix.restore} ({shown(f, d.corrections[f]!.ai)})
                      </Button>
                    ))}
                </div>
              );
            })}
            <Group>
              <Button type="submit" loading={update.isPending} disabled={badAmount}>
                {m.save}
              </Button>
              <Button variant="default" onClick={() => setEditing(false)}>
                {m.cancel}
              </Button>
            </Group>
          </Stack>
        </form>
      ) : !r ? (
        <Text c="dimmed">{d.readingError ?? m.invoices.noReading}</Text>
      ) : (
        <Stack gap={4}>
          <Line f="issuerName">{r.issuer.name ?? '—'}</Line>
          <Line f="issuerId">{r.issuer.vatId ? <bdi dir="ltr">{r.issuer.vatId}</bdi> : '—'}</Line>
          <Line f="number">{r.number ? <bdi>{r.number}</bdi> : '—'}</Line>
          <Line f="date">{r.date ? date(r.date) : '—'}</Line>
          <Line f="totalAgorot">{r.totalMinor !== null && r.currency ? <Money agorot={r.totalMinor} currency={r.currency} /> : '—'}</Line>
          {r.vatMinor !== null && r.currency && (
            <Line f="vatAgorot">
              <Money agorot={r.vatMinor} currency={r.currency} />
            </Line>
          )}
          <Mark f="currency" />
          {r.lineItems.length > 0 && (
            <Table mt="xs" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{m.invoices.lineItems}</Table.Th>
                  <Table.Th>{m.invoices.total}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {r.lineItems.map((l, i) => (
                  <Table.Tr key={i}>
                    <Table.Td className="wrap-anywhere">{l.description}</Table.Td>
                    <Table.Td>{l.totalMinor !== null && r.currency ? <Money agorot={l.totalMinor} currency={r.currency} /> : '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
    </Card>
  );
}
