import { Text, TextInput } from '@mantine/core';
import { useI18n } from '../i18n/i18n.tsx';
import { parseAgorot } from '../money.ts';

/** Amount input: accepts "1,250.50" and "1250"; reports agorot (null while not a valid amount). */
export function MoneyInput({ label, value, onChange, currency, required }: { label: string; value: string; onChange(v: string): void; currency: string; required?: boolean }) {
  const { m } = useI18n();
  const invalid = value.trim() !== '' && parseAgorot(value) === null;
  return (
    <TextInput
      label={label}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      inputMode="decimal"
      dir="ltr"
      required={required}
      rightSection={<Text size="sm">{currency === 'ILS' ? '₪' : currency === 'USD' ? '$' : '€'}</Text>}
      error={invalid ? m.money.invalid : undefined}
    />
  );
}

