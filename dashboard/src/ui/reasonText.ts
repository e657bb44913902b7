import type { ErrorDetails } from '../api/errorTypes.ts';
import { errorNounsEn, errorsEn } from '../i18n/errors.en.ts';
import { errorNounsHe, errorsHe } from '../i18n/errors.he.ts';

/** The page's language (App and setLang keep <html lang> on the chosen one). */
export const pageLang = (): 'he' | 'en' => ((globalThis as { document?: { documentElement: { lang: string } } }).document?.documentElement.lang === 'en' ? 'en' : 'he');

/** First-strong isolates: a value typed by a person (a phone, a name) keeps its own direction inside the sentence. */
const isolate = (s: string) => `\u2068${s}\u2069`;

/** An error reason in the user's language, its params filled in and each isolated. */
export function reasonText(details: ErrorDetails, lang: 'he' | 'en' = pageLang()): string {
  const params = (details.params ?? {}) as Record<string, string | number | string[]>;
  const numbers = new Intl.NumberFormat(lang === 'he' ? 'he-IL' : 'en-IL');
  return (lang === 'en' ? errorsEn : errorsHe)[details.reason].replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = params[k];
    // `what` is a noun of the API's closed set: our own word in the sentence's language, so not isolated.
    if (k === 'what' && typeof v === 'string') return (lang === 'en' ? errorNounsEn : errorNounsHe)[v] ?? isolate(v);
    if (v === undefined) return '';
    if (Array.isArray(v)) return v.map(isolate).join(', ');
    return isolate(typeof v === 'number' ? numbers.format(v) : v);
  });
}
