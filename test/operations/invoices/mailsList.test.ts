import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { get } from '../../http.ts';
import { mailsPath, seenIdOf, type ScannedMail } from '../../../functions/src/domain/mail/mailImport.ts';
import { searchTokensOf } from '../../../functions/src/domain/search.ts';
import { authenticate } from '../../../functions/src/core/auth.ts';
import { execute } from '../../../functions/src/core/execute.ts';

let h: Harness;
const T0 = Date.parse('2026-03-01T08:00:00Z');
before(async () => {
  h = await createHarness();
  const results = ['imported', 'no_invoice', 'duplicate', 'error'] as const;
  const batch = h.app.services.store.batch();
  for (let i = 0; i < 40; i++) {
    const accountId = i % 2 ? 'acc-b' : 'acc-a';
    const from = i % 5 === 0 ? 'bills@bezeq.example' : `Vendor ${i} <v${i}@example.com>`;
    const subject = i % 5 === 0 ? `חשבונית חודשית ${i}` : `Invoice ${i} for March`;
    const date = new Date(T0 + i * 3_600_000).toISOString();
    const m: ScannedMail = { seenId: seenIdOf(accountId, `m${i}`), accountId, messageId: `m${i}`, importId: i < 24 ? 'imp1' : 'imp2', from, subject, date, dateMs: Date.parse(date), result: results[i % 4], reason: '', invoices: i % 4 === 0 ? 1 : 0, docIds: [], search: searchTokensOf([from, subject], [], 120), createdAt: date };
    batch.set(mailsPath(h.owner.businessId, m.seenId), { ...m });
  }
  await batch.commit();
});
after(() => h.close());

const list = (input: Record<string, unknown> = {}, user = h.owner) => h.call('mailsList', input, user);

test('newest first, filtered by result, mailbox and words of the sender or subject', async () => {
  const all = await list({ limit: 200 });
  assert.equal(all.total, 40);
  assert.equal(all.items[0].seenId, seenIdOf('acc-b', 'm39'));
  assert.ok((await list({ result: 'error' })).items.every((m: any) => m.result === 'error'));
  assert.ok((await list({ accountId: 'acc-a', limit: 200 })).items.every((m: any) => m.accountId === 'acc-a'));
  const bezeq = await list({ q: 'bez' });
  assert.equal(bezeq.total, 8);
  assert.ok(bezeq.items.every((m: any) => m.from.includes('bezeq')));
  assert.equal((await list({ q: 'חשבונית' })).total, 8, 'Hebrew subjects');
  const combo = await list({ q: 'invoice march', accountId: 'acc-b', result: 'no_invoice' });
  assert.ok(combo.items.length > 0 && combo.items.every((m: any) => m.accountId === 'acc-b' && m.result === 'no_invoice' && /Invoice/.test(m.subject)));
  await assert.rejects(list({ result: 'bogus' }), { code: 'invalid-argument', message: /^result:/ });
});

test('importId lists the mails one import looked at, alone or with the other filters', async () => {
  const imp2 = await list({ importId: 'imp2', limit: 200 });
  assert.equal(imp2.total, 16);
  assert.equal(imp2.totalIsEstimate, false);
  assert.deepEqual(imp2.items.map((m: any) => m.seenId), Array.from({ length: 16 }, (_, k) => 39 - k).map((i) => seenIdOf(i % 2 ? 'acc-b' : 'acc-a', `m${i}`)));
  const errors = await list({ importId: 'imp2', result: 'error' });
  assert.equal(errors.items.length, 4);
  assert.ok(errors.items.every((m: any) => m.result === 'error'));
  const bezeq = await list({ importId: 'imp1', q: 'bezeq' });
  assert.deepEqual(bezeq.items.map((m: any) => m.subject).sort(), ['חשבונית חודשית 0', 'חשבונית חודשית 10', 'חשבונית חודשית 15', 'חשבונית חודשית 20', 'חשבונית חודשית 5']);
  const mailbox = await list({ importId: 'imp2', accountId: 'acc-a', limit: 200 });
  assert.equal(mailbox.items.length, 8);
  assert.ok(mailbox.items.every((m: any) => m.accountId === 'acc-a'));
  assert.equal((await list({ importId: 'none-such' })).total, 0);
});

test('pageToken walks the list and agrees with one big page; a later page costs the page, not the depth', async () => {
  for (const input of [{}, { q: 'invoice' }, { accountId: 'acc-a', q: 'march' }, { importId: 'imp1', accountId: 'acc-b' }]) {
    const expected = (await list({ ...input, limit: 200 })).items.map((m: any) => m.seenId);
    const walked: string[] = [];
    let token: string | undefined;
    do {
      const r = await list({ ...input, limit: 6, ...(token ? { pageToken: token } : {}) });
      walked.push(...r.items.map((m: any) => m.seenId));
      token = r.nextPageToken ?? undefined;
    } while (token);
    assert.deepEqual(walked, expected, JSON.stringify(input));
  }
  const caller = await authenticate(h.app.services.store, `Bearer ${h.owner.apiKey}`, Date.now());
  let token = (await list({ limit: 5 })).nextPageToken;
  for (let i = 0; i < 4; i++) {
    const { result, meter } = await execute(h.registry.get('mailsList')!, { limit: 5, pageToken: token }, caller, h.app.services, 'test');
    assert.ok(meter.reads <= 5 + 2, `page ${i + 2}: ${meter.reads} reads`);
    token = (result as any).nextPageToken;
  }
});

test('another business sees none of these mails; GET works over HTTP', async () => {
  const other = await h.newBusiness('Other');
  assert.equal((await list({}, other)).total, 0);
  const origin = await h.listen();
  const res = await get(origin, '/v1/mailsList?result=imported&limit=3', h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.items.length, 3);
});
