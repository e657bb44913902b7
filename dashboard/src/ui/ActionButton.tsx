import { useState } from 'react';
import { Button } from '@mantine/core';
import { ConfirmModal } from './ConfirmModal.tsx';
import { isDangerous, type OperationName } from '../api/client.ts';
import { useI18n } from '../i18n/i18n.tsx';

/**
 * A button for an operation: when the registry flags it dangerous (OpenAPI `x-flags.dangerous`), it asks first.
 */
export function ActionButton({
  op,
  label,
  onRun,
  color,
  variant = 'light',
  size = 'sm',
  loading,
  disabled,
}: {
  op: OperationName;
  label: string;
  onRun(): unknown;
  color?: string;
  variant?: string;
  size?: string;
  loading?: boolean;
  disabled?: boolean;
}) {
  const { m, fill } = useI18n();
  const [asking, setAsking] = useState(false);
  const dangerous = isDangerous(op);
  return (
    <>
      <Button color={color ?? (dangerous ? 'red' : undefined)} variant={variant} size={size} loading={loading} disabled={disabled} onClick={() => (dangerous ? setAsking(true) : onRun())}>
        {label}
      </Button>
      {dangerous && (
        <ConfirmModal opened={asking} onClose={() => setAsking(false)} title={m.confirmDanger.title} body={fill(m.confirmDanger.body, { action: label })} go={m.confirmDanger.go} goColor="red" onGo={onRun} />
      )}
    </>
  );
}

