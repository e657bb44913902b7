import { useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { Alert, Button, EmptyState, Group, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { ApiError } from '../api/client.ts';
import { useI18n } from '../i18n/i18n.tsx';
import { GENERIC_REASONS, reasonText } from './fieldErrors.ts';

/** The API's error in the user's language: its reason when it has one, else its code with the server's own words. */
export function errorText(error: unknown, m: ReturnType<typeof useI18n>['m'], fill: ReturnType<typeof useI18n>['fill']): string {
  if (!(error instanceof ApiError)) return m.error.title;
  if (error.code === 'network') return m.error.network;
  if (error.details) return reasonText(error.details);
  const known = (m.error as Record<string, string>)[error.code];
  return fill(known ?? m.error.other, { message: error.message });
}

export function ErrorAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { m, fill, lang } = useI18n();
  const text = errorText(error, m, fill);
  // The server's English words beside a generic reason (they hold the specifics), in English only: none in the Hebrew UI.
  const generic = lang === 'en' && error instanceof ApiError && (!error.details || GENERIC_REASONS.has(error.details.reason));
  const detail = generic && error instanceof ApiError && !text.includes(error.message) && error.code !== 'network' ? error.message : '';
  return (
    <Alert color="red" title={m.error.title} role="alert">
      <Stack gap="xs">
        <Text size="sm">{text}</Text>
        {detail && (
          <Text size="xs" c="dimmed">
            {fill(m.error.detail, { message: '' })}
            <span lang="en" dir="ltr">
              {detail}
            </span>
          </Text>
        )}
        {onRetry && (
          <Group>
            <Button size="xs" variant="light" color="red" onClick={onRetry}>
              {m.retry}
            </Button>
          </Group>
        )}
      </Stack>
    </Alert>
  );
}

/** Rows of grey bars where a list will be: the page keeps its shape while it loads. */
export function ListSkeleton({ rows = 5 }: { rows?: number }) {
  const { m } = useI18n();
  return (
    <Stack gap="sm" aria-busy="true" aria-label={m.loading}>
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} height={56} radius="md" />
      ))}
    </Stack>
  );
}

export function Empty({ title, body, action }: { title: string; body?: string; action?: ReactNode }) {
  return (
    <EmptyState title={title} description={body}>
      {action}
    </EmptyState>
  );
}

/** An amount with its currency, left to right inside any text direction. */
export function Money({ agorot, currency }: { agorot: number; currency: string }) {
  const { money } = useI18n();
  return <bdi dir="ltr">{money(agorot, currency)}</bdi>;
}

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
      <h1 style={{ margin: 0, fontSize: 'var(--mantine-h2-font-size)' }}>{children}</h1>
      {actions}
    </Group>
  );
}

/** A list's search field: the words go to `onSearch` (the URL's `q`) on Enter and when the field is left. */
export function SearchForm({ initial, onSearch, placeholder }: { initial: string; onSearch(q: string): void; placeholder?: string }) {
  const { m } = useI18n();
  const [value, setValue] = useState(initial);
  return (
    <form
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(value.trim());
      }}
    >
      <TextInput type="search" label={m.search} placeholder={placeholder} value={value} onChange={(e) => setValue(e.currentTarget.value)} onBlur={() => onSearch(value.trim())} />
    </form>
  );
}

/**
 * A list's filters in the URL (they survive reloads and links) and its page tokens (the pages opened so far, the last
 * one the current): `set` changes one filter, an empty value removes it unless its key is in `keepEmpty`, and goes back
 * to the first page.
 */
export function useListParams(keepEmpty: readonly string[] = []) {
  const [params, setParams] = useSearchParams();
  const [tokens, setTokens] = useState<string[]>([]);
  const set = (k: string, v: string | null) => {
    const next = new URLSearchParams(params);
    if (v !== null && (v !== '' || keepEmpty.includes(k))) next.set(k, v);
    else next.delete(k);
    setTokens([]);
    setParams(next, { replace: true });
  };
  return { params, set, tokens, setTokens, pageToken: tokens[tokens.length - 1] as string | undefined };
}

/** Previous and next over a list's page tokens: `tokens` are the pages opened so far, the last one the current. */
export function Pager({ tokens, setTokens, next }: { tokens: string[]; setTokens(f: (t: string[]) => string[]): void; next: string | null }) {
  const { m } = useI18n();
  return (
    <Group justify="space-between" mt="sm">
      <Button variant="default" disabled={!tokens.length} onClick={() => setTokens((t) => t.slice(0, -1))}>
        {m.previous}
      </Button>
      <Button variant="default" disabled={!next} onClick={() => setTokens((t) => [...t, next!])}>
        {m.next}
      </Button>
    </Group>
  );
}

/** A box files can be dropped on (outlined while they hover); what it holds is the page's, including its file input. */
export function DropZone({ onFiles, testId, children }: { onFiles(files: File[]): void; testId?: string; children: ReactNode }) {
  const [over, setOver] = useState(false);
  return (
    <div
      className="drop-zone"
      data-over={over}
      data-testid={testId}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        onFiles([...e.dataTransfer.files]);
      }}
    >
      {children}
    </div>
  );
}
