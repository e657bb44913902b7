import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { he, type Messages } from './he.ts';

export type Lang = 'he' | 'en';
const LANG_KEY = 'lang';

/** Fills `{name}` placeholders. */
export const fill = (template: string, vars: Record<string, string | number> = {}) => template.replace(/\{(\w+)\}/g, (_, k: string) => (k in vars ? String(vars[k]) : `{${k}}`));

export interface I18n {
  lang: Lang;
  dir: 'rtl' | 'ltr';
  locale: 'he-IL' | 'en-IL';
  m: Messages;
  setLang(lang: Lang): void;
  fill: typeof fill;
  money(agorot: number, currency: string): string;
  date(iso: string | number | null | undefined, withTime?: boolean): string;
  number(n: number): string;
}

const Ctx = createContext<I18n | null>(null);

/** English is loaded when first chosen: most owners never switch, and the first load stays small. */
let english: Messages | null = null;
export async function loadLang(lang: Lang): Promise<void> {
  if (lang === 'en' && !english) english = (await import('./en.ts')).en;
}

/** Hebrew unless the user chose English (the choice, not a secret, is kept in localStorage). */
export const initialLang = (): Lang => (localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'he');

export function makeI18n(lang: Lang, setLang: (l: Lang) => void): I18n {
  const locale = lang === 'he' ? 'he-IL' : 'en-IL';
  const moneyFormats = new Map<string, Intl.NumberFormat>();
  const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'Asia/Jerusalem' });
  const dateTimeFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Jerusalem' });
  const numberFormat = new Intl.NumberFormat(locale);
  return {
    lang,
    dir: lang === 'he' ? 'rtl' : 'ltr',
    locale,
    // English is in memory before it is chosen: loadLang runs before the first render and before setLang.
    m: lang === 'en' && english ? english : he,
    setLang,
    fill,
    money(agorot, currency) {
      let f = moneyFormats.get(currency);
      if (!f) moneyFormats.set(currency, (f = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: 2 })));
      // Agorot are integers; the division only places the decimal point for display.
      return f.format(agorot / 100);
    },
    date(v, withTime = false) {
      if (v === null || v === undefined || v === '') return '';
      const d = new Date(v);
      return Number.isNaN(d.getTime()) ? String(v) : (withTime ? dateTimeFormat : dateFormat).format(d);
    },
    number: (n) => numberFormat.format(n),
  };
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const value = useMemo(
    () =>
      makeI18n(lang, (l) => {
        void loadLang(l).then(() => {
          localStorage.setItem(LANG_KEY, l);
          document.documentElement.lang = l;
          document.documentElement.dir = l === 'he' ? 'rtl' : 'ltr';
          setLangState(l);
        });
      }),
    [lang],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useI18n(): I18n {
  const v = useContext(Ctx);
  if (!v) throw new Error('useI18n outside I18nProvider');
  return v;
}
