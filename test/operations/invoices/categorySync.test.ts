import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, reading, storedDoc, type InvoicesEnv } from './helpers.ts';
import { invoicesPath, type InvoiceDoc } from '../../../functions/src/domain/invoices/invoices.ts';
import { invoiceSearchTokens, newInvoiceDoc } from '../../../functions/src/domain/invoices/invoiceDocs.ts';
import { vendorKeyOf } from '../../../functions/src/domain/invoices/vendorKeys.ts';
import { folderRulesPath, whenSchema, type FolderRuleRecord } from '../../../functions/src/domain/invoices/folderRules.ts';

/** Read invoices without a category, written straight to the store (as an import would leave them). */
async function seed(env: InvoicesEnv, n: number, issuer: (i: number) => string, over: Partial<InvoiceDoc> = {}) {
  const ids: string[] = [];
  const store = env.h.app.services.store;
  for (let i = 0; i < n; i++) {
    const docId = env.h.app.services.ids();
    const r = reading({ issuer: { name: issuer(i), vatId: null } });
    const doc = newInvoiceDoc(
      { docId, businessId: env.h.owner.businessId, fileId: 'f', fileName: 'x.pdf', contentType: 'application/pdf', size: 1, sha256: docId, source: 'mailbox', createdAtMs: Date.now() + i },
      { reading: r, readingStatus: 'read', vendorKey: vendorKeyOf(r), folderId: 'general', ...over },
    );
    doc.search = invoiceSearchTokens(doc);
    await store.set(invoicesPath(env.h.owner.businessId, docId), { ...doc });
    ids.push(docId);
  }
  return ids;
}

const sync = (env: InvoicesEnv) => env.h.call('categorySync');

test('rules first, then AI, 25 per call; unsure answers are marked and not retried; the loop converges', async () => {
  const env = await invoicesEnv();
  try {
    await env.h.call('vendorCategoryRuleSet', { key: 'name:ruled vendor', category: 'rent' });
    const ruled = await seed(env, 5, () => 'Ruled Vendor');
    const aiDocs = await seed(env, 40, (i) => `Vendor ${i}`);
    // Not candidates: unread, failed, already categorized, hand-uncategorized.
    const [unread] = await seed(env, 1, () => 'U', { readingStatus: 'unread' });
    const [failed] = await seed(env, 1, () => 'F', { readingStatus: 'failed' });
    const [done] = await seed(env, 1, () => 'D', { category: 'insurance', categoryBy: 'ai' });
    const [hand] = await seed(env, 1, () => 'H', { category: '', categoryBy: 'hand' });
    // The AI knows even vendors, is unsure of odd ones, and answers one with a made-up id.
    env.ai.classify = (items) => ({
      ok: true,
      value: Object.fromEntries(items.map((it) => [it.id, it.issuer === 'Vendor 3' ? 'yachts' : Number(it.issuer.split(' ')[1]) % 2 === 0 ? 'software' : null])),
    });
    const results = [];
    for (let i = 0; i < 10; i++) {
      const r = await sync(env);
      results.push(r);
      if (r.remaining === 0) break;
    }
    assert.deepEqual(results.at(-1)!.remaining, 0);
    assert.ok(results.length <= 3, `converged in ${results.length} calls`);
    assert.equal(results.reduce((s, r) => s + r.classified, 0), 5 + 20);
    assert.equal(results.reduce((s, r) => s + r.unclassified, 0), 20);
    assert.ok(env.ai.classifyCalls.every((c) => c.length <= 25));
    assert.equal(env.ai.classifyCalls.flat().length, 40, 'each AI-needing invoice was sent once');
    assert.deepEqual(env.ai.classifyCalls[0][0].lineItems, ['Consulting']);
    for (const id of ruled) assert.deepEqual(((d) => [d.category, d.categoryBy])(await storedDoc(env.h, id)), ['rent', 'rule']);
    const outcome = await Promise.all(aiDocs.map((id) => storedDoc(env.h, id)));
    assert.equal(outcome.filter((d) => d.category === 'software' && d.categoryBy === 'ai').length, 20);
    assert.equal(outcome.filter((d) => d.category === '' && d.categoryBy === 'ai').length, 20, 'unsure (incl. the made-up id) are marked');
    assert.equal((await storedDoc(env.h, unread)).categoryBy, null);
    assert.equal((await storedDoc(env.h, failed)).categoryBy, null);
    assert.equal((await storedDoc(env.h, done)).category, 'insurance');
    assert.equal((await storedDoc(env.h, hand)).categoryBy, 'hand');
    // Nothing left: another call sends nothing to the AI.
    const calls = env.ai.classifyCalls.length;
    assert.deepEqual(await sync(env), { classified: 0, unclassified: 0, remaining: 0, needsAi: 0 });
    assert.equal(env.ai.classifyCalls.length, calls);
  } finally {
    await env.close();
  }
});

test('a category the folder rules test files the invoice again', async () => {
  const env = await invoicesEnv();
  try {
    const folder = await env.h.call('folderCreate', { name: 'Software' });
    const at = new Date().toISOString();
    const rule: FolderRuleRecord = { id: 'sw', when: whenSchema.parse({ category: 'software' }), folderId: folder.id, bodyInvoice: false, enabled: true, order: 0, createdAt: at, updatedAt: at, applyCursor: '' };
    await env.h.app.services.store.set(folderRulesPath(env.h.owner.businessId, 'sw'), { ...rule });
    const [id] = await seed(env, 1, () => 'Vendor 2');
    env.ai.classify = (items) => ({ ok: true, value: Object.fromEntries(items.map((it) => [it.id, 'software'])) });
    await sync(env);
    const d = await storedDoc(env.h, id);
    assert.deepEqual([d.category, d.folderId, d.folderBy, d.folderRuleId], ['software', folder.id, 'rule', 'sw']);
  } finally {
    await env.close();
  }
});

test('each call is one AI request against the daily quota; a used-up quota is 429 after saving the rule results', async () => {
  const env = await invoicesEnv({ env: { QUOTA_AI: '1' } });
  try {
    await env.h.call('vendorCategoryRuleSet', { key: 'name:ruled vendor', category: 'rent' });
    await seed(env, 30, (i) => `Vendor ${i}`);
    const first = await sync(env);
    assert.deepEqual([first.unclassified, first.remaining], [25, 5]);
    const [ruled] = await seed(env, 1, () => 'Ruled Vendor');
    await assert.rejects(sync(env), { code: 'resource-exhausted' });
    assert.equal((await storedDoc(env.h, ruled)).category, 'rent', 'the rule result was saved');
  } finally {
    await env.close();
  }
});

test('an AI failure is 503 unavailable; nothing is marked, so the next call tries again', async () => {
  const env = await invoicesEnv();
  try {
    const [id] = await seed(env, 1, () => 'Vendor 2');
    env.ai.classify = () => ({ ok: false, reason: 'reply did not match the schema' });
    await assert.rejects(sync(env), { code: 'unavailable', message: /^AI classification failed/ });
    assert.equal((await storedDoc(env.h, id)).categoryBy, null);
    env.ai.classify = (items) => ({ ok: true, value: Object.fromEntries(items.map((it) => [it.id, 'software'])) });
    assert.equal((await sync(env)).classified, 1);
  } finally {
    await env.close();
  }
});

test('without AI configured rules still apply, the rest is counted in needsAi, and a call with nothing else to do is failed-precondition', async () => {
  const env = await invoicesEnv({ configured: false });
  try {
    await env.h.call('vendorCategoryRuleSet', { key: 'name:ruled vendor', category: 'rent' });
    const ruled = await seed(env, 3, () => 'Ruled Vendor');
    const rest = await seed(env, 30, (i) => `Vendor ${i}`);
    const calls = [];
    for (let i = 0; i < 5; i++) {
      const r = await sync(env);
      calls.push(r);
      if (r.remaining === 0) break;
    }
    assert.equal(calls.at(-1)!.remaining, 0);
    assert.equal(calls.at(-1)!.needsAi, 30);
    assert.equal(calls.reduce((s, r) => s + r.classified, 0), 3);
    for (const id of ruled) assert.equal((await storedDoc(env.h, id)).category, 'rent');
    await assert.rejects(sync(env), { code: 'failed-precondition', message: /^AI is not configured: 30 invoice\(s\)/ });
    // Once AI is configured, the waiting invoices are classified.
    env.ai.configured = true;
    env.ai.classify = (items) => ({ ok: true, value: Object.fromEntries(items.map((it) => [it.id, 'software'])) });
    await sync(env);
    const second = await sync(env);
    assert.equal(second.remaining, 0);
    assert.ok((await Promise.all(rest.map((id) => storedDoc(env.h, id)))).every((d) => d.category === 'software' && d.categoryNeedsAi === false));
  } finally {
    await env.close();
  }
});
