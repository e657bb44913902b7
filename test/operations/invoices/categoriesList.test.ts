import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, type InvoicesEnv } from './helpers.ts';
import { get } from '../../http.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

test('the fixed list: 20–30 categories with unique ids and Hebrew labels, "other" last; also over GET', async () => {
  const { items } = await env.h.call('categoriesList');
  assert.ok(items.length >= 20 && items.length <= 30, String(items.length));
  assert.equal(new Set(items.map((c: any) => c.id)).size, items.length);
  for (const c of items) {
    assert.match(c.id, /^[a-z_]+$/);
    assert.match(c.label, /[\u0590-\u05FF]/, `${c.id} has a Hebrew label`);
  }
  assert.equal(items.at(-1).id, 'other');
  const origin = await env.h.listen();
  const r = await get(origin, '/v1/categoriesList', env.h.owner.apiKey);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.result.items, items);
});

test('the invoice operations carry the spec flags: R for the four reads, D for deleteInvoiceDoc, none admin-only', () => {
  const names = ['invoicesList', 'invoiceGet', 'uploadInvoiceDoc', 'analyzeInvoice', 'updateInvoiceDoc', 'deleteInvoiceDoc', 'invoiceBulkPayRule', 'vendorPayRuleSet', 'vendorRulesList', 'categoriesList', 'invoiceSetCategory', 'vendorCategoryRuleSet', 'categorySync'];
  const reads = new Set(['invoicesList', 'invoiceGet', 'vendorRulesList', 'categoriesList']);
  for (const name of names) {
    const op = env.h.registry.get(name);
    assert.ok(op, name);
    assert.equal(op.group, 'invoices', name);
    assert.equal(Boolean(op.flags.readOnly), reads.has(name), `${name} readOnly`);
    assert.equal(Boolean(op.flags.dangerous), name === 'deleteInvoiceDoc', `${name} dangerous`);
    assert.equal(Boolean(op.flags.adminOnly), false, `${name} adminOnly`);
  }
});
