import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input, month as monthSchema } from '../../core/schema.ts';
import { invalid, precondition } from '../../core/errors.ts';
import { closedMonth, lastClosedMonth } from '../../domain/months.ts';
import { readAutomation, runOutput, runView } from '../../domain/automations/automations.ts';
import { startStatementsRun } from '../../domain/automations/statementsRun.ts';
import { pollMailboxAutomation } from '../../domain/automations/mailboxPoll.ts';

export default defineOperation({
  name: 'automationRunNow',
  group: 'mailboxes',
  summary: 'Run an automation now: pull and mail a month, or check a mailbox',
  description:
    'The statements automation pulls the month (default: the last closed one) for every statement account in the background and, as soon as the last sync settled ' +
    '(at the latest after two hours), mails the package to its recipients as configured; the answer is the started run, follow it with automationRuns. ' +
    'Asked again while that month is still being pulled, it answers the same run, adding statement accounts connected since it started (nothing is pulled or mailed twice). ' +
    'A mailbox automation checks its mailbox now and sends what arrived to an import. A paused automation is refused: resume it first.',
  flags: { openWorld: true },
  input: input({
    id: id().describe('Automation id (automationList); system_statements is the statements automation.'),
    month: monthSchema().optional().describe('Statements automation: the closed month to pull, YYYY-MM; default the last closed month.'),
  }),
  output: runOutput,
  async run({ id: automationId, month }, ctx) {
    const { businessId } = ctx.caller;
    const a = await readAutomation(ctx, businessId, automationId);
    if (a.type === 'statements') {
      const m = month === undefined ? lastClosedMonth(ctx.clock.now()) : closedMonth(month, ctx.clock.now());
      const run = await startStatementsRun(ctx, businessId, m, 'manual');
      return runView(ctx, run!);
    }
    if (month !== undefined) throw invalid('month', 'only the statements automation pulls a month', { reason: 'statementsOnly' });
    if (!a.enabled) throw precondition('id: the automation is paused; resume it (automationUpdate with enabled: true) first', { reason: 'automationPaused' });
    const run = await pollMailboxAutomation(ctx, businessId, automationId, 'manual');
    if (!run) throw precondition('id: the automation was paused or deleted meanwhile', { reason: 'notInState' });
    return runView(ctx, run);
  },
  activity: (_input, r) => ({ params: { ...r.params, outcome: r.outcome }, targetIds: [r.automationId, ...(r.runId ? [r.runId] : [])], summary: `ran automation ${r.automationId}: ${r.summary}`.slice(0, 200) }),
});
