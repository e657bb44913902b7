import { ApiError } from '../api/client.ts';

/**
 * The API's invalid-argument message names each field (`apiKey: is required to connect a provider; note: at
 * most 500 characters`): split into one message per field, so each shows under its own input. What names no
 * listed field stays in `rest`, for the form's general error.
 */
export function fieldErrors<F extends string>(error: unknown, fields: readonly F[]): { byField: Partial<Record<F, string>>; rest: string[] } {
  const byField: Partial<Record<F, string>> = {};
  const rest: string[] = [];
  if (!(error instanceof ApiError) || error.code !== 'invalid-argument') return { byField, rest };
  for (const part of error.message.split('; ')) {
    const colon = part.indexOf(': ');
    const field = colon > 0 ? part.slice(0, colon) : '';
    if ((fields as readonly string[]).includes(field)) byField[field as F] = byField[field as F] ? `${byField[field as F]}; ${part.slice(colon + 2)}` : part.slice(colon + 2);
    else rest.push(part);
  }
  return { byField, rest };
}
