import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invalid, notFound, precondition } from '../../core/errors.ts';
import { isCategory } from '../../domain/invoices/categories.ts';
import { foldersPath, readFolder } from '../../domain/invoices/folders.ts';
import { folderRulesPath, loadRules, MAX_RULES, refileByRule, ruleOutput, ruleView, whenSchema, type FolderRuleRecord } from '../../domain/invoices/folderRules.ts';

export default defineOperation({
  name: 'folderRuleSave',
  group: 'folders',
  summary: 'Create or update a folder rule',
  description:
    'Create a folder rule (omit id; it goes last, at the lowest priority) or replace the conditions and folder of an existing one. ' +
    'folderId "" is allowed only with bodyInvoice=true. applyExisting also re-files the invoices already there, except hand-filed ones ' +
    '(the first batch runs now; continue with folderRuleApply while remaining > 0).',
  flags: {},
  input: input({
    id: z.string().min(1).max(128).optional().describe('Rule to update; omit to create a new rule (added last).'),
    when: whenSchema.describe('Conditions; every one that is set must hold. Send "" for unused ones.'),
    folderId: z.string().max(128).describe('Folder that receives matching invoices; "" only with bodyInvoice true.'),
    bodyInvoice: z.boolean().optional().describe('true also turns matching mail bodies (no attachment) into invoices.'),
    enabled: z.boolean().optional().describe('false keeps the rule but stops applying it (default true).'),
    applyExisting: z.boolean().default(false).describe('true also re-files invoices already there (those not filed by hand).'),
  }),
  output: z.object({ rule: ruleOutput, created: z.boolean(), applied: z.object({ refiled: z.int(), remaining: z.int() }).nullable() }),
  async run({ id: givenId, when, folderId, bodyInvoice, enabled, applyExisting }, ctx) {
    const { businessId } = ctx.caller;
    if (when.category && !isCategory(when.category)) throw invalid('when.category', `unknown category ${when.category}; see categoriesList`, { reason: 'notAFolderRuleCategory', params: { value: when.category } });
    const now = iso(ctx.clock.now());
    const newId = ctx.ids();
    const saved = await ctx.store.runTransaction(async (tx) => {
      const rules = await loadRules(tx, businessId);
      const existing = givenId ? rules.find((r) => r.id === givenId) : undefined;
      if (givenId && !existing) throw notFound(`folder rule ${givenId}`, 'rule');
      const isBody = bodyInvoice ?? existing?.bodyInvoice ?? false;
      if (folderId === '' && !isBody) throw invalid('folderId', 'required unless bodyInvoice is true (a rule that only turns mail bodies into invoices)', { reason: 'required' });
      const target = folderId ? await readFolder(tx, businessId, folderId, now) : null;
      if (folderId && !target) throw notFound(`folderId: folder ${folderId}`, 'folder');
      if (!existing && rules.length >= MAX_RULES) throw precondition(`a business can have at most ${MAX_RULES} folder rules`, { reason: 'tooManyRules', params: { max: MAX_RULES } });
      const rule: FolderRuleRecord = {
        id: existing?.id ?? newId,
        when,
        folderId,
        bodyInvoice: isBody,
        enabled: enabled ?? existing?.enabled ?? true,
        // New rules go last, so adding one never changes where the existing rules send documents.
        order: existing?.order ?? (rules.length ? Math.max(...rules.map((r) => r.order)) + 1 : 0),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
        applyCursor: '',
      };
      if (target && !target.stored) tx.set(foldersPath(businessId, folderId), { ...target.folder });
      tx.set(folderRulesPath(businessId, rule.id), { ...rule });
      return { rule, created: !existing };
    });
    const applied = applyExisting ? await refileByRule(ctx.store, businessId, saved.rule.id, now) : null;
    return { rule: ruleView(saved.rule), created: saved.created, applied: applied && { refiled: applied.refiled, remaining: applied.remaining } };
  },
  activity: (_input, result) => ({
    params: { created: result.created, refiled: result.applied ? result.applied.refiled : null },
    targetIds: [result.rule.id, ...(result.rule.folderId ? [result.rule.folderId] : [])],
    summary:
      `${result.created ? 'created' : 'updated'} folder rule → ${result.rule.folderId || '(mail body only)'}` +
      (result.applied ? `; re-filed ${result.applied.refiled}, ${result.applied.remaining} remaining` : ''),
  }),
});
