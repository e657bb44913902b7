import { ApiError } from '../api/client.ts';
import { pageLang, reasonText } from './reasonText.ts';

export { reasonText };

/** Reasons a throw gets when it names none of its own: the API's message holds the specifics. */
export const GENERIC_REASONS: ReadonlySet<string> = new Set(['invalidValue', 'notPossibleNow', 'outOfRange', 'alreadyExists', 'permissionDenied', 'notFound', 'limitReached', 'unavailable']);

/**
 * Errors by field, each in the user's language under its own input: the API's details name the field and the
 * reason. What names no listed field stays in `rest`, for the form's general error. An answer without details
 * (an older server) falls back to splitting the message, which names each field first (`apiKey: is required`).
 */
export function fieldErrors<F extends string>(error: unknown, fields: readonly F[], lang: 'he' | 'en' = pageLang()): { byField: Partial<Record<F, string>>; rest: string[] } {
  const byField: Partial<Record<F, string>> = {};
  const rest: string[] = [];
  if (!(error instanceof ApiError) || error.code !== 'invalid-argument') return { byField, rest };
  if (error.details) {
    const field = error.details.field;
    if (field && (fields as readonly string[]).includes(field)) byField[field as F] = reasonText(error.details, lang);
    else rest.push(reasonText(error.details, lang));
    return { byField, rest };
  }
  for (const part of error.message.split('; ')) {
    const colon = part.indexOf(': ');
    const field = colon > 0 ? part.slice(0, colon) : '';
    if ((fields as readonly string[]).includes(field)) byField[field as F] = byField[field as F] ? `${byField[field as F]}; ${part.slice(colon + 2)}` : part.slice(colon + 2);
    else rest.push(part);
  }
  return { byField, rest };
}
