import { useState, type ReactNode } from 'react';
import { Alert, Button, Card, Group, NativeSelect, SimpleGrid, Text } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert } from '../../ui/common.tsx';
import { fillNodes } from '../../ui/fillNodes.tsx';
import { categoryName } from '../../ui/names.ts';

type Option = { value: string; label: string };
// The category "" (uncategorized) needs a value of its own: "" is the chooser's empty state.
const NONE = '__none__';
const REFRESH = ['invoicesList', 'invoiceGet', 'foldersList', 'attention'] as const;

/** A list and its apply button: a change applies nothing until the button is pressed. Native, so phones show their own picker. */
function Chooser({ label, options, busy, onApply }: { label: string; options: Option[]; busy: boolean; onApply(value: string): void }) {
  const { m } = useI18n();
  const [value, setValue] = useState('');
  return (
    <Group gap="xs" wrap="nowrap" align="flex-end">
      <NativeSelect label={label} style={{ flex: 1, minWidth: 0 }} value={value} onChange={(e) => setValue(e.currentTarget.value)} data={[{ value: '', label: m.invoiceBulk.choose }, ...options]} />
      <Button variant="light" disabled={!value} loading={busy} onClick={() => onApply(value)} aria-label={`${m.invoiceBulk.apply}: ${label}`}>
        {m.invoiceBulk.apply}
      </Button>
    </Group>
  );
}

/** The invoices list's action bar: what is chosen here applies to every selected invoice, in one call per action. */
export function BulkBar({ docIds, folders, onClear }: { docIds: string[]; folders: Option[]; onClear(): void }) {
  const { m, fill, number } = useI18n();
  const categories = useApi('categoriesList', {});
  const suppliers = useApi('suppliersList', {});
  const move = useApiMutation('invoicesMove', [...REFRESH]);
  const assign = useApiMutation('invoicesAssignSupplier', [...REFRESH]);
  const categorize = useApiMutation('invoiceSetCategory', [...REFRESH]);
  const mark = useApiMutation('invoiceBulkPayRule', [...REFRESH]);
  const [done, setDone] = useState<ReactNode>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const n = number(docIds.length);
  const name = (s: string) => <bdi>{s}</bdi>;
  const run = async (action: () => Promise<ReactNode>) => {
    setDone(null);
    setFailed(null);
    try {
      setDone(await action());
    } catch (e) {
      setFailed(e);
    }
  };
  const categoryOptions = [{ value: NONE, label: m.reports.uncategorized }, ...(categories.data?.items ?? []).map((c) => ({ value: c.id, label: categoryName(m, c) }))];
  const supplierOptions = (suppliers.data?.items ?? []).map((s) => ({ value: s.key, label: s.name || s.key }));
  const labelOf = (options: Option[], value: string) => options.find((o) => o.value === value)?.label ?? value;
  return (
    <Card withBorder padding="sm" data-testid="bulk-bar" aria-label={m.invoiceBulk.actions} component="section">
      <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
        <Text fw={600} aria-live="polite" data-testid="bulk-count">
          {fill(m.invoiceBulk.selected, { n })}
        </Text>
        <Button variant="subtle" size="compact-sm" onClick={onClear}>
          {m.invoiceBulk.clear}
        </Button>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        <Chooser
          label={m.invoices.category}
          options={categoryOptions}
          busy={categorize.isPending}
          onApply={(v) => void run(async () => {
            await categorize.mutateAsync({ docIds, category: v === NONE ? '' : v, remember: false });
            return fillNodes(m.invoiceBulk.categorized, { n, category: name(labelOf(categoryOptions, v)) });
          })}
        />
        <Chooser
          label={m.invoices.payMark}
          options={(['card', 'not_card'] as const).map((r) => ({ value: r, label: m.invoiceBulk.payRules[r] }))}
          busy={mark.isPending}
          onApply={(v) => void run(async () => {
            const rule = v as 'card' | 'not_card';
            await mark.mutateAsync({ docIds, rule, remember: false });
            return fill(m.invoiceBulk.marked, { n, mark: m.invoiceBulk.payRules[rule] });
          })}
        />
        <Chooser
          label={m.invoices.folder}
          options={folders}
          busy={move.isPending}
          onApply={(v) => void run(async () => {
            await move.mutateAsync({ docIds, folderId: v });
            return fillNodes(m.invoiceBulk.moved, { n, folder: name(labelOf(folders, v)) });
          })}
        />
        <Chooser
          label={m.invoiceBulk.supplier}
          options={supplierOptions}
          busy={assign.isPending}
          onApply={(v) => void run(async () => {
            const r = await assign.mutateAsync({ docIds, supplierKey: v });
            return fillNodes(m.invoiceBulk.assigned, { n, supplier: name(r.supplierName || labelOf(supplierOptions, v)) });
          })}
        />
      </SimpleGrid>
      {done !== null && (
        <Alert color="green" mt="xs" role="status" data-testid="bulk-done">
          {done}
        </Alert>
      )}
      {failed !== null && (
        <div style={{ marginTop: 8 }}>
          <ErrorAlert error={failed} />
        </div>
      )}
    </Card>
  );
}
