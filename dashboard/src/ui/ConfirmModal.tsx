import type { ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useI18n } from '../i18n/i18n.tsx';

/** A question before an action: the title, what will happen, a way back and the button that does it. */
export function ConfirmModal({
  opened,
  onClose,
  title,
  body,
  back,
  go,
  goColor,
  onGo,
  textSize,
}: {
  opened: boolean;
  onClose(): void;
  title: string;
  body: ReactNode;
  /** The way-back button's label (default: cancel). */
  back?: string;
  go: string;
  goColor?: string;
  onGo(): void;
  textSize?: string;
}) {
  const { m } = useI18n();
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered closeButtonProps={{ 'aria-label': m.close }}>
      <Stack>
        <Text size={textSize}>{body}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {back ?? m.cancel}
          </Button>
          <Button
            color={goColor}
            onClick={() => {
              onClose();
              onGo();
            }}
          >
            {go}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
