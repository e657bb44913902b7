import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { startFakeIta, itaEnv, approveConsent, FAKE_CLIENT, type FakeIta } from '../../fakes/ita.ts';
import { itaConsentPath, itaSettings, withItaAccess, type ItaConsentRecord } from '../../../functions/src/domain/invoices/ita.ts';
import { itaClient, type ItaClient } from '../../../functions/src/adapters/ita/itaClient.ts';
import { invoicesPath, type InvoiceDoc, type InvoiceReading } from '../../../functions/src/domain/invoices/invoices.ts';
import { paymentsPath, type PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';
import { seal, unseal } from '../../../functions/src/core/secrets.ts';
import type { Logger } from '../../../functions/src/core/logger.ts';

const DAY = 24 * 60 * 60 * 1000;
const BUSINESS_VAT = '514444441';
const SUPPLIER_VAT = '512345678';
const ALLOCATION = '20260501123456789012345678';

let h: Harness;
let fake: FakeIta;
let now = Date.parse('2026-05-10T09:00:00Z');
const logs: string[] = [];
const logger: Logger = Object.fromEntries(['debug', 'info', 'warn', 'error'].map((l) => [l, (m: string, f?: object) => logs.push(`${m} ${JSON.stringify(f ?? {})}`)])) as unknown as Logger;

before(async () => {
  fake = await startFakeIta(FAKE_CLIENT);
  // Long enough for a loaded CI machine; the timeout test makes the fake wait twice as long.
  h = await createHarness({ env: itaEnv(fake, { ITA_TIMEOUT_MS: '2000' }), overrides: { clock: { now: () => now }, logger } });
  // 10,000.00 + 1,800.00 VAT = 11,800.00
  fake.invoices.set(ALLOCATION, { confirmationNumber: ALLOCATION, vatNumber: SUPPLIER_VAT, customerVatNumber: BUSINESS_VAT, paymentAmount: 10_000, vatAmount: 1_800 });
});
after(async () => {
  await h.close();
  await fake.close();
});

const store = () => h.app.services.store;

async function connect(user: TestUser = h.owner) {
  await h.call('updateBusiness', { companyId: BUSINESS_VAT }, user);
  const { res } = await approveConsent(h.http, (await h.call('itaConnectStart', {}, user)).url);
  assert.equal(res.status, 200);
}

const reading = (over: Partial<InvoiceReading> = {}): InvoiceReading => ({
  issuer: { name: 'Dana Cohen Ltd', vatId: SUPPLIER_VAT, email: null, phone: null },
  docType: 'tax_invoice',
  number: '1001',
  date: '2026-05-01',
  totalMinor: 1_180_000,
  currency: 'ILS',
  vatMinor: 180_000,
  payMethod: 'bank_transfer',
  cardEnding: null,
  lineItems: [],
  bank: null,
  allocationNumber: ALLOCATION,
  ...over,
});

/** A payment with a supplier-attached invoice whose reading is `r` (null: not read yet). */
async function paymentWithInvoice(r: InvoiceReading | null, user: TestUser = h.owner): Promise<string> {
  const p = await h.call('createPayment', { amountAgorot: 1_180_000, vatIncluded: true, description: 'Renovation', supplierName: 'Dana Cohen', supplierPhone: '050-123-4567', channel: 'link' }, user);
  const fileId = `file${p.id}`;
  const at = new Date(now).toISOString();
  await store().update(paymentsPath(user.businessId, p.id), {
    invoices: [{ fileId, fileName: 'invoice.pdf', contentType: 'application/pdf', size: 100, sha256: 'x'.repeat(64), uploadedAt: at }],
  });
  if (r !== undefined) {
    const docId = `doc${p.id}`;
    const doc: InvoiceDoc = {
      docId, businessId: user.businessId, fileId, fileName: 'invoice.pdf', contentType: 'application/pdf', size: 100, sha256: 'x'.repeat(64),
      source: 'supplier', paymentId: p.id, reading: r, readingStatus: r ? 'read' : 'unread', readingError: null, readAt: r ? at : null,
      vendorKey: `vat:${SUPPLIER_VAT}`, duplicateOf: null, mailbox: null, folderId: 'general', folderBy: 'default', folderRuleId: null,
      category: '', categoryBy: null, note: '', payMark: '', effectivePayMark: 'unpaid', supplierKey: null, supplierName: 'Dana Cohen',
      supplierBy: null, suggestionId: null, softwareId: null, date: '2026-05-01', search: [], createdAt: at, createdAtMs: now, updatedAt: at,
    };
    await store().set(invoicesPath(user.businessId, docId), { ...doc });
  }
  return p.id;
}

const payment = async (id: string, businessId = h.owner.businessId) => (await store().get(paymentsPath(businessId, id)))!.data as unknown as PaymentRecord & { itaCheckedAt?: string };
const consent = async () => (await store().get(itaConsentPath(h.owner.businessId)))?.data as ItaConsentRecord | undefined;
const detailsCalls = () => fake.requests.filter((r) => r.path.endsWith('/invoice-information/v1/details'));

test('without a consent: failed-precondition, and the ITA is not asked', async () => {
  await h.call('updateBusiness', { companyId: BUSINESS_VAT });
  const id = await paymentWithInvoice(reading());
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'failed-precondition', message: /no tax authority consent.*itaConnectStart/ });
  assert.equal(detailsCalls().length, 0);
  assert.equal((await payment(id)).itaVerdict, null);
});

test('match: the number and amounts agree; the verdict is stored on the payment', async () => {
  await connect();
  const id = await paymentWithInvoice(reading());
  const res = await h.call('itaVerifyAllocation', { paymentId: id });
  assert.deepEqual(res, {
    paymentId: id,
    verdict: 'match',
    allocationNumber: ALLOCATION,
    docId: `doc${id}`,
    checkedAt: new Date(now).toISOString(),
    invoice: { totalAgorot: 1_180_000, vatAgorot: 180_000 },
    ita: { totalAgorot: 1_180_000, vatAgorot: 180_000 },
  });
  const p = await payment(id);
  assert.equal(p.itaVerdict, 'match');
  assert.equal(p.itaCheckedAt, new Date(now).toISOString());
  assert.equal((await h.call('paymentGet', { paymentId: id })).itaVerdict, 'match');

  // The request: bearer token of the consent, JSON body with the business as customer and the supplier's VAT number.
  const call = detailsCalls().at(-1)!;
  assert.equal(call.headers.authorization, `Bearer ${fake.issued.accessTokens.at(-1)}`);
  assert.match(String(call.headers['content-type']), /^application\/json/);
  assert.deepEqual(call.json, { Customer_VAT_Number: Number(BUSINESS_VAT), Confirmation_Number: ALLOCATION, Vat_Number: Number(SUPPLIER_VAT) });
  const { items } = await h.call('listActivity');
  const row = items.find((r: any) => r.operation === 'itaVerifyAllocation');
  assert.deepEqual(row.targetIds, [id]);
  assert.match(row.summary, /match/);
});

test('a printed number with spaces or hyphens is read as its digits', async () => {
  const id = await paymentWithInvoice(reading({ allocationNumber: '2026 0501-1234 5678 9012 345678' }));
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: id })).verdict, 'match');
});

test('amount_mismatch: the total or the VAT differs from what the ITA holds', async () => {
  const total = await paymentWithInvoice(reading({ totalMinor: 1_180_100 }));
  const res = await h.call('itaVerifyAllocation', { paymentId: total });
  assert.equal(res.verdict, 'amount_mismatch');
  assert.deepEqual(res.ita, { totalAgorot: 1_180_000, vatAgorot: 180_000 });
  assert.equal((await payment(total)).itaVerdict, 'amount_mismatch');

  const vat = await paymentWithInvoice(reading({ vatMinor: 170_000 }));
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: vat })).verdict, 'amount_mismatch');
  // No VAT on the reading: the total alone decides.
  const noVat = await paymentWithInvoice(reading({ vatMinor: null }));
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: noVat })).verdict, 'match');
});

test('not_found: the ITA knows no such number, or not for this supplier', async () => {
  const unknown = await paymentWithInvoice(reading({ allocationNumber: '999999999' }));
  const res = await h.call('itaVerifyAllocation', { paymentId: unknown });
  assert.equal(res.verdict, 'not_found');
  assert.equal(res.ita, null);
  assert.equal((await payment(unknown)).itaVerdict, 'not_found');

  const otherIssuer = await paymentWithInvoice(reading({ issuer: { name: 'Someone Else', vatId: '300000007', email: null, phone: null } }));
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: otherIssuer })).verdict, 'not_found');
});

test('a re-check replaces the earlier verdict', async () => {
  const id = await paymentWithInvoice(reading({ totalMinor: 1 }));
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: id })).verdict, 'amount_mismatch');
  await store().update(invoicesPath(h.owner.businessId, `doc${id}`), { reading: reading() });
  now += 1000;
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: id })).verdict, 'match');
  const p = await payment(id);
  assert.equal(p.itaVerdict, 'match');
  assert.equal(p.itaCheckedAt, new Date(now).toISOString());
});

test('an invoice not analyzed yet, or none at all: failed-precondition "analyze the payment\'s invoice first"', async () => {
  const unread = await paymentWithInvoice(null);
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: unread }), { code: 'failed-precondition', message: /analyze the payment's invoice first/ });
  const p = await h.call('createPayment', { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'Dana', supplierPhone: '050-123-4567', channel: 'link' });
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: p.id }), { code: 'failed-precondition', message: /no invoice yet.*analyze/ });
});

test('an invoice without an allocation number: failed-precondition, the ITA is not asked', async () => {
  const calls = detailsCalls().length;
  const id = await paymentWithInvoice(reading({ allocationNumber: null }));
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'failed-precondition', message: /the invoice has no allocation number/ });
  const junk = await paymentWithInvoice(reading({ allocationNumber: 'ABC-12' }));
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: junk }), { code: 'failed-precondition', message: /is not one/ });
  const usd = await paymentWithInvoice(reading({ currency: 'USD' }));
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: usd }), { code: 'failed-precondition', message: /in USD/ });
  assert.equal(detailsCalls().length, calls);
  assert.equal((await payment(id)).itaVerdict, null);
});

test("without the business's VAT number (companyId): failed-precondition", async () => {
  const id = await paymentWithInvoice(reading());
  await h.call('updateBusiness', { companyId: '' });
  try {
    await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'failed-precondition', message: /companyId/ });
  } finally {
    await h.call('updateBusiness', { companyId: BUSINESS_VAT });
  }
});

test('ITA down (5xx): unavailable, and the payment is unchanged', async () => {
  const id = await paymentWithInvoice(reading());
  const before = await payment(id);
  fake.failNext(1, 503);
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'unavailable', message: /did not answer.*try again later/ });
  assert.deepEqual(await payment(id), before);
});

test('ITA too slow (timeout): unavailable, and the payment is unchanged', async () => {
  const id = await paymentWithInvoice(reading());
  const before = await payment(id);
  fake.delayNext(4_000);
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'unavailable', message: /no answer within 2000 ms/ });
  assert.deepEqual(await payment(id), before);
});

test('an answer without invoice details is no verdict: unavailable, payment unchanged', async () => {
  const id = await paymentWithInvoice(reading());
  const before = await payment(id);
  fake.answerNext(200, { Status: 200, Message: 'Something happened' });
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'unavailable', message: /unexpected answer/ });
  assert.deepEqual(await payment(id), before);
});

test('field names are read in any case, amounts as numbers or numeric text', async () => {
  const id = await paymentWithInvoice(reading());
  fake.answerNext(200, { status: 200, message: { vat_number: SUPPLIER_VAT, payment_amount: '10000.00', vat_amount: '1800', payment_amount_including_vat: 11800 } });
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: id })).verdict, 'match');
});

test('the ITA refusing access for the VAT number (403): failed-precondition explaining it', async () => {
  const id = await paymentWithInvoice(reading());
  fake.answerNext(403, { Status: 403, Message: 'User is not authorized for this VAT number' });
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'failed-precondition', message: /refused access \(User is not authorized for this VAT number\)/ });
  assert.equal((await payment(id)).itaVerdict, null);
});

test('an expired access token is refreshed first, and the new tokens are stored sealed', async () => {
  const id = await paymentWithInvoice(reading());
  const before = (await consent())!;
  now += 11 * 60_000;
  const refreshes = fake.requests.filter((r) => r.form?.grant_type === 'refresh_token').length;
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: id })).verdict, 'match');
  const sent = fake.requests.filter((r) => r.form?.grant_type === 'refresh_token');
  assert.equal(sent.length, refreshes + 1);
  const form = sent.at(-1)!.form!;
  assert.equal(form.client_id, FAKE_CLIENT.clientId);
  assert.equal(form.client_secret, FAKE_CLIENT.clientSecret);
  assert.equal(form.refresh_token, unseal(before.sealed, h.app.services.config.credentialsKey).refreshToken);

  const after = (await consent())!;
  const tokens = unseal(after.sealed, h.app.services.config.credentialsKey);
  assert.deepEqual(tokens, { accessToken: fake.issued.accessTokens.at(-1), refreshToken: fake.issued.refreshTokens.at(-1) });
  assert.doesNotMatch(JSON.stringify(after), new RegExp(`${tokens.accessToken}|${tokens.refreshToken}`));
  assert.equal(after.accessExpiresAtMs, now + 600_000);
  // The consent's 90 days are counted from the grant, not from a refresh.
  assert.equal(after.expiresAt, before.expiresAt);
  assert.equal(detailsCalls().at(-1)!.headers.authorization, `Bearer ${tokens.accessToken}`);
});

test('a 401 from the ITA refreshes the token once and retries', async () => {
  const id = await paymentWithInvoice(reading());
  fake.expireAccessTokens();
  const calls = detailsCalls().length;
  assert.equal((await h.call('itaVerifyAllocation', { paymentId: id })).verdict, 'match');
  assert.equal(detailsCalls().length, calls + 2);
  assert.equal(detailsCalls().at(-2)!.headers.authorization, `Bearer ${fake.issued.accessTokens.at(-2)}`);
  assert.equal(detailsCalls().at(-1)!.headers.authorization, `Bearer ${fake.issued.accessTokens.at(-1)}`);
});

test('no result, activity row or log line ever holds a token', async () => {
  const id = await paymentWithInvoice(reading());
  const res = await h.call('itaVerifyAllocation', { paymentId: id });
  const seen = JSON.stringify([res, await h.call('listActivity'), await h.call('getBusiness'), await h.call('paymentGet', { paymentId: id })]) + logs.join('\n');
  for (const t of [...fake.issued.accessTokens, ...fake.issued.refreshTokens, ...fake.issued.codes, FAKE_CLIENT.clientSecret]) assert.ok(!seen.includes(t));
});

test('cross-business payment ids are not-found', async () => {
  const other = await h.newBusiness();
  const theirs = await paymentWithInvoice(reading(), other);
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: theirs }), { code: 'not-found' });
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: 'no-such-payment' }), { code: 'not-found' });
  assert.equal((await payment(theirs, other.businessId)).itaVerdict, null);
});

test('a refresh token spent by a concurrent call: the successor it stored is used, nothing is marked', async () => {
  const real = itaClient(itaSettings(h.app.services.config));
  const path = itaConsentPath(h.owner.businessId);
  let winner = '';
  // The wrapped refresh first lets "another call" rotate the token and store its successor, then tries the spent one.
  const racing: ItaClient = {
    ...real,
    async refresh(refreshToken) {
      const other = await real.refresh(refreshToken);
      winner = other.accessToken;
      await store().update(path, { sealed: seal({ accessToken: other.accessToken, refreshToken: other.refreshToken! }, h.app.services.config.credentialsKey) });
      return real.refresh(refreshToken);
    },
  };
  fake.expireAccessTokens();
  const found = await withItaAccess(h.app.services, h.owner.businessId, (ita, token) => ita.invoiceDetails(token, { customerVatNumber: BUSINESS_VAT, confirmationNumber: ALLOCATION, vatNumber: null }), racing);
  assert.equal(found?.totalAgorot, 1_180_000);
  assert.equal(detailsCalls().at(-1)!.headers.authorization, `Bearer ${winner}`);
  assert.equal((await consent())!.refusedAt, undefined);
});

test('a revoked refresh token: failed-precondition to connect again, and getBusiness shows it disconnected', async () => {
  const id = await paymentWithInvoice(reading());
  fake.expireAccessTokens();
  fake.revokeRefreshTokens();
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'failed-precondition', message: /no longer accepts the stored consent/ });
  const c = (await consent())!;
  assert.ok(c.refusedAt);
  assert.deepEqual((await h.call('getBusiness')).ita, { connected: false, expiresAt: c.expiresAt });
  assert.equal((await payment(id)).itaVerdict, null);
  // Known dead: the next call does not ask the ITA at all.
  const calls = fake.requests.length;
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'failed-precondition', message: /itaConnectStart/ });
  assert.equal(fake.requests.length, calls);
});

test('after 90 days the consent has expired: failed-precondition, and getBusiness shows connected false', async () => {
  await connect();
  const id = await paymentWithInvoice(reading());
  const { expiresAt } = (await consent())!;
  now = Date.parse(expiresAt) - 1;
  assert.deepEqual((await h.call('getBusiness')).ita, { connected: true, expiresAt });
  now = Date.parse(expiresAt);
  assert.deepEqual((await h.call('getBusiness')).ita, { connected: false, expiresAt });
  const calls = fake.requests.length;
  await assert.rejects(h.call('itaVerifyAllocation', { paymentId: id }), { code: 'failed-precondition', message: /consent expired.*itaConnectStart/ });
  assert.equal(fake.requests.length, calls);
  assert.ok(Date.parse(expiresAt) - Date.parse('2026-05-10T09:00:00Z') >= 90 * DAY);
});
