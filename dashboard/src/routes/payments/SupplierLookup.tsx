import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import type { Output } from '../../api/client.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi } from '../../ui/api.ts';

export type SupplierRow = Output<'suppliersList'>['items'][number];

/** Known suppliers whose name, phone or email start like what is being typed (suppliersList's q); a click fills the form. */
export function SupplierMatches({ q, onPick }: { q: string; onPick(s: SupplierRow): void }) {
  const { m } = useI18n();
  const [debounced] = useDebouncedValue(q.trim(), 250);
  const list = useApi('suppliersList', { q: debounced }, { enabled: debounced.length >= 2 });
  // The current text too: the debounced one lags a pick (which clears it) by a moment.
  const rows = q.trim().length >= 2 && debounced.length >= 2 ? (list.data?.items ?? []).slice(0, 5) : [];
  if (!rows.length) return null;
  return (
    <nav aria-label={m.supplierTools.matches} data-testid="supplier-matches">
      <Text size="sm" fw={500} mb={4}>
        {m.supplierTools.matches}
      </Text>
      <Stack gap={4}>
        {rows.map((s) => (
          <Button key={s.key} variant="light" justify="start" onClick={() => onPick(s)} styles={{ label: { whiteSpace: 'normal', textAlign: 'start' } }}>
            <span className="wrap-anywhere">
              {s.name} · <span dir="ltr">{s.phone ?? s.email}</span>
            </span>
          </Button>
        ))}
      </Stack>
    </nav>
  );
}

/** The known supplier (or the one it was merged into) whose phone or email is the whole `value` typed. */
export function useKnownSupplier(value: string, kind: 'phone' | 'email'): SupplierRow | undefined {
  const v = value.trim();
  const whole = kind === 'phone' ? v.replace(/\D/g, '').length >= 9 : /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v);
  const [debounced] = useDebouncedValue(whole ? v : '', 250);
  const list = useApi('suppliersList', { q: debounced }, { enabled: debounced !== '' });
  const exact = debounced && whole ? list.data?.exact : null;
  return exact ? list.data?.items.find((s) => s.key === exact) : undefined;
}

/** "This phone belongs to …" for a known supplier's whole phone or email (useKnownSupplier). */
export function KnownSupplier({ hit, kind, name, onUse }: { hit: SupplierRow | undefined; kind: 'phone' | 'email'; name: string; onUse(s: SupplierRow): void }) {
  const { m, fill } = useI18n();
  if (!hit) return null;
  return (
    <Alert color="blue" variant="light" role="status" data-testid={`known-${kind}`}>
      <Group justify="space-between" gap="xs">
        <Text size="sm" className="wrap-anywhere">
          {fill(kind === 'phone' ? m.supplierTools.phoneBelongs : m.supplierTools.emailBelongs, { name: hit.name })}
        </Text>
        {hit.name !== name.trim() && (
          <Button size="xs" variant="filled" onClick={() => onUse(hit)}>
            {m.supplierTools.use}
          </Button>
        )}
      </Group>
    </Alert>
  );
}
