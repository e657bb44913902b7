import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { invoicePdf } from '../../fakes/pdfs.ts';
import { registry } from '../../../functions/src/operations/index.ts';
import { jsonSchemaOf } from '../../../functions/src/surfaces/openapi/jsonSchema.ts';
import { lastClosedMonth } from '../../../functions/src/domain/months.ts';

/**
 * Issue 18 C4–C6: the most used clients read every tool's result. The MCP TypeScript SDK 1.x client
 * validates structuredContent against the tool's outputSchema and throws on a mismatch; here every
 * tool is called once through it, and each result is also checked against the operation's full
 * output schema (the OpenAPI one, which refuses unknown fields).
 */
let h: Harness;
let origin: string;
let member: TestUser;
before(async () => {
  h = await createHarness({ env: { RATE_LIMIT_PER_MIN: '100000', RATE_LIMIT_USER_PER_MIN: '0', RATE_LIMIT_BUSINESS_PER_MIN: '0' } });
  origin = await h.listen();
  member = await h.addMember('user');
});
after(() => h.close());

async function connect1(key: string, query = '?toolsets=all') {
  const client = new Client1({ name: 'sdk1-test', version: '1.0.0' });
  await client.connect(new Transport1(new URL(`/mcp${query}`, origin), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

test('a tool error reaches the SDK 1.x and 2.x clients as an isError result with the message, not a schema error', async () => {
  const c1 = await connect1(h.owner.apiKey);
  await c1.listTools(); // the 1.x client caches each tool's output validator here
  const r1 = (await c1.callTool({ name: 'paymentGet', arguments: { paymentId: 'nope' } })) as CallToolResult;
  assert.equal(r1.isError, true);
  assert.equal(r1.structuredContent, undefined);
  assert.deepEqual(JSON.parse(textOf(r1)), { code: 'not-found', message: 'paymentId: payment nope not found' });
  await c1.close();

  const c2 = new Client2({ name: 'sdk2-test', version: '1.0.0' });
  await c2.connect(new Transport2(new URL('/mcp?toolsets=all', origin), { requestInit: { headers: { authorization: `Bearer ${h.owner.apiKey}` } } }));
  await c2.listTools();
  const r2 = (await c2.callTool({ name: 'paymentGet', arguments: { paymentId: 'nope' } })) as CallToolResult;
  assert.equal(r2.isError, true);
  assert.match(textOf(r2), /payment nope not found/);
  await c2.close();
});

type Input = Record<string, unknown>;
type Results = Map<string, any>;

/** Valid inputs, in an order where later calls use what earlier ones made. Tools not named here are called with {}. */
function scenario(pdfBase64: string, month: string): [string, Input | ((r: Results) => Input)][] {
  const payment = (r: Results) => r.get('createPayment')?.id;
  const doc = (r: Results) => r.get('uploadInvoiceDoc')?.docId;
  return [
    ['whoami', {}],
    ['updateBusiness', { city: 'Tel Aviv' }],
    ['setBusinessApp', { app: 'payments', enabled: true }],
    ['checkPublicSlug', { slug: 'acme-studio-mcp' }],
    ['setMyPublicLink', { slug: 'acme-studio-mcp' }],
    ['saveBusinessIntegration', { provider: 'greeninvoice', apiKey: 'k-123', note: 'test' }],
    ['apiKeyCreate', { name: 'second key' }],
    ['apiKeyRevoke', (r) => ({ keyId: r.get('apiKeyCreate')?.key?.keyId })],
    ['createSupplier', { name: 'Avi Electric', phone: '050-1234567' }],
    ['getSupplierContact', { supplierKey: '0501234567' }],
    ['saveSupplierContact', { supplierKey: '0501234567', notes: 'calls back' }],
    ['createPayment', { amountAgorot: 125000, vatIncluded: true, description: 'Logo design', supplierName: 'Dana Studio', supplierEmail: 'dana@example.com', channel: 'link' }],
    ['paymentGet', (r) => ({ paymentId: payment(r) })],
    ['updatePaymentSettings', (r) => ({ paymentId: payment(r), invoiceRequired: false })],
    ['resendPayment', (r) => ({ paymentId: payment(r), channel: 'em' })],
    ['markPaid', (r) => ({ paymentId: payment(r) })],
    ['revertPaid', (r) => ({ paymentId: payment(r), status: 'sent' })],
    ['itaVerifyAllocation', (r) => ({ paymentId: payment(r) })],
    ['uploadInvoiceDoc', { fileName: 'inv-42.pdf', mimeType: 'application/pdf', dataBase64: pdfBase64 }],
    ['invoiceGet', (r) => ({ docId: doc(r) })],
    ['updateInvoiceDoc', (r) => ({ docId: doc(r), note: 'checked' })],
    ['analyzeInvoice', (r) => ({ docId: doc(r) })],
    ['invoiceSetCategory', (r) => ({ docIds: [doc(r)], category: r.get('categoriesList')?.items?.[0]?.id ?? 'software', remember: false })],
    ['invoiceBulkPayRule', (r) => ({ docIds: [doc(r)], rule: 'card', remember: false })],
    ['vendorCategoryRuleSet', { key: 'acme', category: 'software' }],
    ['vendorPayRuleSet', { key: 'acme', rule: 'card' }],
    ['folderCreate', { name: 'Studio' }],
    ['folderRename', (r) => ({ id: r.get('folderCreate')?.id, name: 'Studio 2' })],
    ['invoiceSetFolder', (r) => ({ folderId: r.get('folderCreate')?.id, docId: doc(r) })],
    ['folderRuleSave', (r) => ({ when: { subject: 'logo' }, folderId: r.get('folderCreate')?.id })],
    ['folderRuleReorder', (r) => ({ ids: [r.get('folderRuleSave')?.rule?.id] })],
    ['folderRuleApply', (r) => ({ id: r.get('folderRuleSave')?.rule?.id })],
    ['folderRuleDelete', (r) => ({ id: r.get('folderRuleSave')?.rule?.id })],
    ['accFolderCreate', { name: 'Q1' }],
    ['accFolderRename', (r) => ({ id: r.get('accFolderCreate')?.id, name: 'Q1 2026' })],
    ['accFolderSetSource', (r) => ({ id: r.get('accFolderCreate')?.id, source: null })],
    ['accFolderDelete', (r) => ({ id: r.get('accFolderCreate')?.id })],
    ['employeeCreate', { name: 'Noa Levi' }],
    ['employeeUpdate', (r) => ({ id: r.get('employeeCreate')?.id, name: 'Noa L.' })],
    ['employeeDelete', (r) => ({ id: r.get('employeeCreate')?.id })],
    ['inviteMember', { email: 'new@example.com', role: 'user' }],
    ['resendInvite', (r) => ({ inviteId: r.get('inviteMember')?.id ?? r.get('inviteMember')?.inviteId })],
    ['revokeInvite', (r) => ({ inviteId: r.get('inviteMember')?.id ?? r.get('inviteMember')?.inviteId })],
    ['updateMemberRole', { email: member.email, role: 'user' }],
    ['automationUpdate', { id: 'system_statements', config: { recipients: ['cpa@example.com'], onlyWhenComplete: true } }],
    ['automationRuns', { id: 'system_statements' }],
    ['statementsZip', { month }],
    ['statementsSend', { month }],
    ['accZip', {}],
    ['cancelPayment', (r) => ({ paymentId: payment(r) })],
    ['deleteInvoiceDoc', (r) => ({ docId: doc(r) })],
    ['folderDelete', (r) => ({ id: r.get('folderCreate')?.id })],
    ['removeMember', { email: member.email }],
  ];
}

test('every tool called once through the SDK 1.x client: no schema error, and each result matches its declared and its full output schema', async () => {
  const client = await connect1(h.owner.apiKey);
  const { tools } = await client.listTools();
  const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));
  assert.deepEqual([...byName.keys()].sort(), [...registry.keys()].sort());
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const pdf = Buffer.from(await invoicePdf({ issuer: 'Acme Ltd', number: '42', total: '100.00' })).toString('base64');
  const month = lastClosedMonth(h.app.services.clock.now());
  const planned = scenario(pdf, month);
  // Read-only tools first (with categoriesList ahead, for a category id), then the scenario, then the rest.
  const order = [
    'categoriesList',
    ...[...registry.values()].filter((op) => op.flags.readOnly && !planned.some(([n]) => n === op.name)).map((op) => op.name),
    ...planned.map(([n]) => n),
  ];
  const rest = [...registry.keys()].filter((n) => !order.includes(n));
  const results: Results = new Map();
  const failures: string[] = [];
  let succeeded = 0;
  const errors: string[] = [];
  for (const name of [...order, ...rest]) {
    if (results.has(name) && name === 'categoriesList') continue;
    const plan = planned.find(([n]) => n === name)?.[1];
    const args = typeof plan === 'function' ? plan(results) : (plan ?? defaultInput(name));
    let res: CallToolResult;
    try {
      // The SDK 1.x client throws when structuredContent does not match the tool's outputSchema.
      res = (await client.callTool({ name, arguments: args })) as CallToolResult;
    } catch (e) {
      failures.push(`${name}: the SDK 1.x client threw ${(e as Error).message}`);
      continue;
    }
    if (res.isError) {
      errors.push(`${name}: ${textOf(res).slice(0, 120)}`);
      assert.equal(res.structuredContent, undefined, `${name}: an error carries no structuredContent`);
      assert.ok(JSON.parse(textOf(res)).message, `${name}: the error text has a message`);
      results.set(name, null);
      continue;
    }
    succeeded++;
    const value = JSON.parse(textOf(res));
    results.set(name, value);
    const tool = byName.get(name)!;
    const op = registry.get(name)!;
    if (tool.outputSchema) {
      assert.deepEqual(res.structuredContent, value, `${name}: structuredContent is the text's JSON`);
      if (!ajv.validate(tool.outputSchema, value)) failures.push(`${name}: declared outputSchema: ${ajv.errorsText()}`);
    } else {
      assert.ok(typeof value !== 'object' || value === null || Array.isArray(value), `${name}: an object result without an outputSchema`);
    }
    if (!ajv.validate(jsonSchemaOf(op.output, 'output'), value)) failures.push(`${name}: full output schema: ${ajv.errorsText()}`);
  }
  await client.close();
  assert.deepEqual(failures, []);
  assert.equal(results.size, registry.size, 'every tool was called');
  // What a scenario without outside providers can do: the provider tools answer readable errors.
  console.log(`# SDK 1.x: ${succeeded} of ${registry.size} tools succeeded; ${errors.length} answered errors (providers not connected, no AI, preconditions)`);
  for (const must of ['whoami', 'uploadInvoiceDoc', 'statementsZip', 'accZip', 'createPayment', 'markPaid', 'invoiceGet', 'folderRuleSave', 'apiKeyCreate', 'apiKeyRevoke', 'inviteMember', 'automationUpdate', 'removeMember']) {
    assert.ok(results.get(must), `${must} succeeded: ${errors.find((e) => e.startsWith(must + ':'))}`);
  }
  assert.ok(succeeded >= 80, `${succeeded} tools succeeded`);
});

/** For tools the scenario does not name: ids that do not exist, so the answer is a readable refusal. */
function defaultInput(name: string): Input {
  const op = registry.get(name)!;
  const schema = jsonSchemaOf(op.input, 'input') as { properties?: Record<string, { type?: string; enum?: unknown[] }>; required?: string[] };
  const out: Input = {};
  for (const field of schema.required ?? []) {
    const s = schema.properties?.[field] ?? {};
    out[field] = s.enum ? s.enum[0] : s.type === 'integer' || s.type === 'number' ? 1 : s.type === 'boolean' ? false : s.type === 'array' ? [] : s.type === 'object' ? {} : field === 'month' ? '2026-01' : 'missing-id';
  }
  return out;
}
