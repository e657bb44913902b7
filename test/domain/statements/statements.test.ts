import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { mercuryUuid, startFakeMercury, type FakeMercury } from '../../fakes/mercury.ts';
import { addMonths, closedMonth, closedMonths, currentMonth } from '../../../functions/src/domain/months.ts';
import { automationRunStatementPath, requestStatementSync, statementId } from '../../../functions/src/domain/statements/statements.ts';

test('months: strict YYYY-MM, closed in Israel time', () => {
  // 2026-01-31 23:30 UTC is already 1 February in Israel: January is closed there, February is not.
  const t = Date.parse('2026-01-31T23:30:00Z');
  assert.equal(currentMonth(t), '2026-02');
  assert.equal(closedMonth('2026-01', t), '2026-01');
  for (const bad of ['2026-02', '2026-03', '2026-1', '2026-13', '26-01', '2026-01-01', ' 2026-01']) {
    assert.throws(() => closedMonth(bad, t), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message), bad);
  }
  const offered = closedMonths(t);
  assert.equal(offered.length, 24);
  assert.equal(offered[0], '2026-01');
  assert.equal(offered.at(-1), '2024-02');
  assert.equal(addMonths('2025-12', 1), '2026-01');
});

let h: Harness;
let mercury: FakeMercury;
before(async () => {
  mercury = await startFakeMercury();
  mercury.tokens.add('tok');
  mercury.accounts.push({ id: mercuryUuid('a1'), name: 'Ops', status: 'active', kind: 'checking' });
  h = await createHarness({ env: { USBANK_BASE_URL: mercury.baseUrl } });
});
after(async () => {
  await h.close();
  await mercury.close();
});

test('a sync requested with runId records its outcome on the automation run; a repeat while pending queues nothing', async () => {
  const last = addMonths(currentMonth(Date.now()), -1);
  mercury.statements.set(mercuryUuid('a1'), new Map([[last, Buffer.from('%PDF-1.4 ops')]]));
  const acc = (await h.call('usbankConnect', { token: 'tok' })).accounts[0];
  const b = h.owner.businessId;
  await requestStatementSync(h.app.services, b, 'usbank', acc.id, last, { runId: 'run1' });
  await requestStatementSync(h.app.services, b, 'usbank', acc.id, last, { runId: 'run1' });
  assert.equal(await h.app.queue!.drain(), 1);
  const rec = await h.app.services.store.get(automationRunStatementPath(b, 'run1', statementId(acc.id, last)));
  assert.equal(rec?.data.status, 'ready');
  // A month without a statement settles failed with the reason, also recorded.
  const older = addMonths(last, -3);
  await requestStatementSync(h.app.services, b, 'usbank', acc.id, older, { runId: 'run1' });
  await h.app.queue!.drain();
  const failed = await h.app.services.store.get(automationRunStatementPath(b, 'run1', statementId(acc.id, older)));
  assert.equal(failed?.data.status, 'failed');
  assert.match(String(failed?.data.reason), /no statement/);
});
