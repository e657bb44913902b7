import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { seedIssuer } from './helpers.ts';
import { softwarePath, type SoftwareRecord } from '../../../functions/src/domain/invoices/issuers.ts';

let h: Harness;
let id: string;
before(async () => {
  h = await createHarness();
  const s = await seedIssuer(h.app.services.store, h.owner.businessId, { name: 'Slack', email: 'billing@slack.example' }, { count: 2 });
  id = (await h.call('supplierSuggestionToSoftware', { id: s.id })).id;
});
after(() => h.close());

const record = async () => (await h.app.services.store.get(softwarePath(h.owner.businessId, id)))!.data as unknown as SoftwareRecord;

test('changes only the fields sent and returns the tool', async () => {
  assert.deepEqual(await h.call('softwareUpdate', { id, cadence: 'yearly' }), {
    id, name: 'Slack', vendorKey: 'email:billing@slack.example', hidden: false, cadence: 'yearly', docCount: 2,
  });
  const r = await h.call('softwareUpdate', { id, name: '  Slack Pro  ', hidden: true });
  assert.deepEqual([r.name, r.hidden, r.cadence], ['Slack Pro', true, 'yearly']);
  assert.deepEqual([(await record()).name, (await record()).hidden], ['Slack Pro', true]);
  const shown = await h.call('softwareUpdate', { id, hidden: false, cadence: 'auto' });
  assert.deepEqual([shown.name, shown.hidden, shown.cadence], ['Slack Pro', false, 'auto']);
  assert.deepEqual((await h.call('softwareUpdate', { id })).name, 'Slack Pro', 'no fields: unchanged');
});

test('bad values are invalid-argument naming the field', async () => {
  await assert.rejects(h.call('softwareUpdate', { id, cadence: 'weekly' }), { code: 'invalid-argument', message: /^cadence: / });
  await assert.rejects(h.call('softwareUpdate', { id, name: '   ' }), { code: 'invalid-argument', message: /^name: / });
  await assert.rejects(h.call('softwareUpdate', { id, hidden: 'yes' }), { code: 'invalid-argument', message: /^hidden: / });
  await assert.rejects(h.call('softwareUpdate', { name: 'x' }), { code: 'invalid-argument', message: /^id: / });
});

test('unknown ids and ids of another business are not-found', async () => {
  const other = await h.newBusiness('Other Co');
  await assert.rejects(h.call('softwareUpdate', { id: 'nope', hidden: true }), { code: 'not-found', message: 'software nope not found' });
  await assert.rejects(h.call('softwareUpdate', { id, hidden: true }, other), { code: 'not-found' });
  assert.equal((await record()).hidden, false);
});

test('the activity row names the fields changed, not their values', async () => {
  await h.call('softwareUpdate', { id, name: 'Secret Name', cadence: 'monthly' });
  const row = (await h.call('listActivity')).items.find((x: any) => x.operation === 'softwareUpdate');
  assert.deepEqual(row.targetIds, [id]);
  assert.equal(row.summary, `software ${id} updated: name, cadence`);
});
