import { Fragment, type ReactNode } from 'react';
import { useI18n } from '../i18n/i18n.tsx';

/**
 * Left-to-right pieces inside Hebrew (phones, emails, account numbers). Without isolation the bidi algorithm moves their neutral characters to
 * the Hebrew side: "+972…" shows its "+" after the digits, "•••901" its mask after them, "<a@b>" its brackets
 * swapped, and "A → B → C" in Latin words runs backwards.
 */
export function Ltr({ children }: { children: ReactNode }) {
  return <bdi dir="ltr">{children}</bdi>;
}

/** A number shown by its last digits only ("•••901"): the mask stays before the digits it hides. */
export function Masked({ value, shown = 3 }: { value: string; shown?: number }) {
  return <Ltr>{'•'.repeat(Math.max(0, value.length - shown)) + value.slice(-shown)}</Ltr>;
}

/** "Name <email>" as a mail header holds it: the name in its own direction, the address with its brackets left to right. */
export function Address({ value }: { value: string }) {
  const m = /^\s*(.*?)\s*(<[^<>]+>)\s*$/.exec(value);
  if (!m) return <bdi>{value}</bdi>;
  return (
    <>
      {m[1] && (
        <>
          <bdi>{m[1].replace(/^"(.*)"$/, '$1')}</bdi>{' '}
        </>
      )}
      <Ltr>{m[2]}</Ltr>
    </>
  );
}

/**
 * Steps in reading order (a provider's menu path, old → new details): each step isolated, joined by an arrow
 * pointing the way the language reads, so in Hebrew the first step is the rightmost.
 */
export function Steps({ steps }: { steps: readonly string[] }) {
  const { dir } = useI18n();
  return (
    <>
      {steps.map((s, i) => (
        <Fragment key={i}>
          {i > 0 && (dir === 'rtl' ? ' ← ' : ' → ')}
          <bdi data-testid="step">{s}</bdi>
        </Fragment>
      ))}
    </>
  );
}
