import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, type InvoicesEnv } from './helpers.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

test('lists pay rules and category rules by name, each only where set; read-only', async () => {
  assert.deepEqual(await env.h.call('vendorRulesList'), { payRules: [], categoryRules: [] });
  await env.h.call('vendorPayRuleSet', { key: 'vat:590000001', rule: 'card', name: 'בזק' });
  await env.h.call('vendorCategoryRuleSet', { key: 'vat:590000001', category: 'communication' });
  await env.h.call('vendorCategoryRuleSet', { key: 'email:aws@amazon.example', category: 'hosting_cloud', name: 'AWS' });
  const r = await env.h.call('vendorRulesList');
  assert.deepEqual(r.payRules.map((p: any) => [p.key, p.name, p.rule]), [['vat:590000001', 'בזק', 'card']]);
  assert.deepEqual(
    r.categoryRules.map((c: any) => [c.key, c.name, c.category, c.label]),
    // Hebrew collation: Hebrew names sort before Latin ones.
    [
      ['vat:590000001', 'בזק', 'communication', 'טלפון ואינטרנט'],
      ['email:aws@amazon.example', 'AWS', 'hosting_cloud', 'אחסון ושירותי ענן'],
    ],
  );
  assert.equal(env.h.registry.get('vendorRulesList')!.flags.readOnly, true);
  const other = await env.h.newBusiness('Other');
  assert.deepEqual(await env.h.call('vendorRulesList', {}, other), { payRules: [], categoryRules: [] });
});
