import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { activityHe, runOutcomeHe } from '../../dashboard/src/i18n/activity.he.ts';
import { activityEn, runOutcomeEn } from '../../dashboard/src/i18n/activity.en.ts';
import { RUN_OUTCOMES } from '../../functions/src/domain/automations/automations.ts';
import { activityTemplate, slotsOf } from '../../dashboard/src/ui/activityText.ts';
import { operations } from '../../functions/src/operations/index.ts';
import { SYSTEM_ACTIONS } from '../../functions/src/core/activity.ts';
import { paymentsEnv, paymentInput, simulateSubmission, type PaymentsEnv } from '../operations/payments/helpers.ts';
import { uploadBody, pdf } from '../operations/invoices/helpers.ts';

const actions = [...operations.filter((o) => !o.flags.readOnly).map((o) => o.name), ...SYSTEM_ACTIONS].sort();

test('every action (a mutating operation) has a Hebrew template, and an English one', () => {
  const noHebrew = actions.filter((a) => !Object.hasOwn(activityHe, a));
  assert.deepEqual(noHebrew, [], `actions without a Hebrew template in dashboard/src/i18n/activity.he.ts: ${noHebrew.join(', ')}`);
  assert.deepEqual(actions.filter((a) => !Object.hasOwn(activityEn, a)), []);
  assert.deepEqual(Object.keys(activityEn).sort(), Object.keys(activityHe).sort());
  const strays = Object.keys(activityHe).filter((a) => !actions.includes(a));
  assert.deepEqual(strays, [], 'templates of no mutating operation');
});

test('every Hebrew template is Hebrew words around its slots, whatever the params', () => {
  for (const a of actions) {
    const t = activityTemplate(activityHe, a, {})!;
    const words = t.replace(/\{\w+\}/g, '').replace(/\b(AI|API|ZIP|Slack)\b/g, '');
    assert.match(words, /[\u0590-\u05FF]/, a);
    assert.doesNotMatch(words, /[A-Za-z]/, `${a}: "${t}"`);
  }
});

test('every automation run outcome has a Hebrew and an English template, Hebrew words around its slots', () => {
  assert.deepEqual(Object.keys(runOutcomeHe).sort(), [...RUN_OUTCOMES].sort());
  assert.deepEqual(Object.keys(runOutcomeEn).sort(), [...RUN_OUTCOMES].sort());
  for (const o of RUN_OUTCOMES) {
    for (const why of ['noRecipients', 'incomplete', null]) {
      const words = activityTemplate(runOutcomeHe, o, { why, missing: 1 })!.replace(/\{\w+\}/g, '');
      assert.match(words, /[\u0590-\u05FF]/, o);
      assert.doesNotMatch(words, /[A-Za-z]/, o);
    }
  }
});

let env: PaymentsEnv;
before(async () => (env = await paymentsEnv()));
after(() => env.close());

test("real rows fill every slot their templates use, in both languages", async () => {
  const p = await env.h.call('createPayment', paymentInput({ supplierName: 'אבי', amountAgorot: 123_450 }));
  await simulateSubmission(env.h, p.id);
  await env.h.call('markPaid', { paymentId: p.id });
  await env.h.call('uploadInvoiceDoc', uploadBody(await pdf()));
  await env.h.call('inviteMember', { email: 'yoni@example.com', role: 'admin' });
  await env.h.call('setBusinessApp', { app: 'software', enabled: false });
  const rows = (await env.h.call('listActivity')).items;
  assert.ok(rows.length >= 5);
  for (const row of rows) {
    for (const templates of [activityHe, activityEn]) {
      const t = activityTemplate(templates, row.action, row.params);
      assert.ok(t, row.action);
      for (const slot of slotsOf(t)) assert.ok(slot === 'amount' ? typeof row.params.amountAgorot === 'number' : slot in row.params, `${row.action}: {${slot}} has no param`);
    }
  }
  assert.equal(activityTemplate(activityHe, 'markPaid', rows.find((r: any) => r.action === 'markPaid').params), 'התשלום ל-{supplier} סומן כשולם ({amount})');
});
