/**
 * An activity row in words: the template of its action (activity.he.ts / activity.en.ts), filled with the row's
 * params. A template is text with `{slot}`s, or a function of the params when the words change with them.
 * Slots: any param (people's text kept as an isolated island), `{amount}` (amountAgorot with currency).
 */
export type ActivityParams = Record<string, string | number | boolean | null>;
export type ActivityTemplate = string | ((p: ActivityParams) => string);
export type ActivityTemplates = Record<string, ActivityTemplate>;

/** The template text for this row, or null when the row is older than actions or its action is unknown here. */
export function activityTemplate(templates: ActivityTemplates, action: string | null | undefined, params: ActivityParams | null | undefined): string | null {
  if (!action || !params || !Object.hasOwn(templates, action)) return null;
  const t = templates[action];
  return typeof t === 'function' ? t(params) : t;
}

/** Slots a template uses: each must be a param, or `amount` when amountAgorot is one. */
export const slotsOf = (template: string): string[] => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
