import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n.tsx';
import { Money } from './common.tsx';
import { fillNodes } from './fillNodes.tsx';
import { activityTemplate, slotsOf, type ActivityParams, type ActivityTemplates } from './activityText.ts';
import { storedCategoryName, storedFolderName } from './names.ts';
import { FileName } from './FileName.tsx';
import { activityHe, runOutcomeHe } from '../i18n/activity.he.ts';
import { activityEn, runOutcomeEn } from '../i18n/activity.en.ts';

/**
 * A template of the chosen language filled with params: people's text isolated (<bdi>), counts as numbers, `{amount}`
 * as the Money component shows it. Without a template (an older row) the English fallback shows.
 */
function TemplateText({ templates, name, params, fallback }: { templates: ActivityTemplates; name: string | null; params: ActivityParams | null; fallback: string }) {
  const { m, number } = useI18n();
  const t = activityTemplate(templates, name, params);
  if (!t || !params) return <>{fallback}</>;
  const vars: Record<string, ReactNode> = {};
  for (const [k, v] of Object.entries(params)) vars[k] = typeof v === 'number' ? number(v) : <bdi>{String(v ?? '')}</bdi>;
  // Categories and built-in folders are stored as ids or Hebrew defaults: named as the invoices screens name them.
  if (typeof params.category === 'string' && params.category) vars.category = <bdi>{storedCategoryName(m, params.category)}</bdi>;
  if (typeof params.folder === 'string' && params.folder) vars.folder = <bdi>{storedFolderName(m, params.folder)}</bdi>;
  // A Hebrew file name keeps its digits and extension together ("חשבונית 17.pdf", not "pdf.17 חשבונית").
  if (typeof params.fileName === 'string' && params.fileName) vars.fileName = <FileName name={params.fileName} />;
  if (typeof params.amountAgorot === 'number' && typeof params.currency === 'string') vars.amount = <Money agorot={params.amountAgorot} currency={params.currency} />;
  // A row missing a param its template needs (written by an older version) reads better as its summary than with a hole.
  if (slotsOf(t).some((k) => !(k in vars))) return <>{fallback}</>;
  return <>{fillNodes(t, vars)}</>;
}

/** An activity row in the chosen language (its summary when it is older than actions). */
export function ActivityText({ action, params, summary }: { action: string | null; params: ActivityParams | null; summary: string }) {
  const { lang } = useI18n();
  return <TemplateText templates={lang === 'he' ? activityHe : activityEn} name={action} params={params} fallback={summary} />;
}

/** An automation run's outcome in the chosen language. */
export function RunOutcomeText({ outcome, params, summary }: { outcome: string; params: ActivityParams; summary: string }) {
  const { lang } = useI18n();
  return <TemplateText templates={lang === 'he' ? runOutcomeHe : runOutcomeEn} name={outcome} params={params} fallback={summary} />;
}
