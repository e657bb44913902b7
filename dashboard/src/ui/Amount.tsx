import { Text } from '@mantine/core';
import { useI18n } from '../i18n/i18n.tsx';
import { vatOf } from '../money.ts';
import { Money } from './common.tsx';
import { fillNodes } from './fillNodes.tsx';

/**
 * The VAT line under a payment's figure, worded as the supplier's page words it: the figure is what
 * the business pays, VAT included; the line says how much of it is VAT, or that no VAT applies.
 */
export function VatNote({ agorot, currency, vatIncluded, noVat }: { agorot: number; currency: string; vatIncluded: boolean; noVat: boolean }) {
  const { m } = useI18n();
  const { vat, total } = vatOf(agorot, vatIncluded, noVat);
  return (
    <Text size="sm" c="dimmed" data-testid="vat-note">
      {noVat ? m.money.noVatLine : fillNodes(m.money.withVat, { vat: <Money agorot={vat} currency={currency} />, net: <Money agorot={total - vat} currency={currency} /> })}
    </Text>
  );
}
