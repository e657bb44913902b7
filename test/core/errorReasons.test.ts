import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { createHarness, type Harness } from '../harness.ts';
import { post } from '../http.ts';
import { paymentInput } from '../operations/payments/helpers.ts';
import { ERROR_REASONS, REASON_NAMES } from '../../functions/src/core/errorReasons.ts';
import { ERROR_DETAILS_META } from '../../functions/src/surfaces/mcp/mcpSurface.ts';

/**
 * Issue 35 item 6: every refusal carries `details: {field?, reason, params?}` beside its code and message, over
 * HTTP in the envelope and over MCP in the tool result's `_meta` (the text the models read stays `{code, message}`).
 */
let h: Harness;
let origin: string;
before(async () => {
  h = await createHarness();
  origin = await h.listen();
  await h.call('createSupplier', { name: 'Dana Cohen', phone: '050-123-4567' });
});
after(() => h.close());

const longName = 'x'.repeat(5000);

/** Refusals a user meets, with the details each must carry. */
const CASES: { name: string; op: string; input: Record<string, unknown>; code: string; details: (message: string) => unknown }[] = [
  {
    name: 'createPayment without a phone or an email',
    op: 'createPayment',
    input: paymentInput({ supplierPhone: undefined }),
    code: 'invalid-argument',
    details: () => ({ field: 'supplierPhone', reason: 'supplierContactRequired' }),
  },
  {
    name: 'saveSupplierContact with a three-digit bankCode',
    op: 'saveSupplierContact',
    input: { supplierKey: '050-123-4567', bankCode: '123' },
    code: 'invalid-argument',
    details: () => ({ field: 'bankCode', reason: 'bankCodeDigits', params: { value: '123', digits: 2 } }),
  },
  {
    name: 'an unknown field',
    op: 'createPayment',
    input: paymentInput({ supplierPhon: '050-123-4567' }),
    code: 'invalid-argument',
    details: () => ({ field: 'supplierPhon', reason: 'unknownField' }),
  },
  {
    name: 'a string over its limit',
    op: 'createPayment',
    input: paymentInput({ supplierName: longName }),
    code: 'invalid-argument',
    details: (message) => ({ field: 'supplierName', reason: 'tooLong', params: { max: Number(/at most (\d+) characters/.exec(message)?.[1]) } }),
  },
];

for (const c of CASES) {
  test(`HTTP: ${c.name} answers the envelope with code, message and details`, async () => {
    const res = await post(origin, `/v1/${c.op}`, c.input, h.owner.apiKey);
    assert.equal(res.status, 400);
    assert.equal(res.body.ok, false);
    assert.equal(res.body.error.code, c.code);
    assert.equal(typeof res.body.error.message, 'string');
    assert.deepEqual(res.body.error.details, c.details(res.body.error.message));
  });
}

test('HTTP: the existing messages stay as they were', async () => {
  const res = await post(origin, '/v1/createPayment', paymentInput({ supplierPhone: undefined }), h.owner.apiKey);
  assert.equal(res.body.error.message, 'supplierPhone: a supplierPhone or a supplierEmail is required');
  const bank = await post(origin, '/v1/saveSupplierContact', { supplierKey: '050-123-4567', bankCode: '123' }, h.owner.apiKey);
  assert.equal(bank.body.error.message, 'bankCode: "123" is not valid: expected 2 digits');
});

test('HTTP: the generic refusals carry their reasons too (no key, a bad key, an unknown operation)', async () => {
  assert.deepEqual((await post(origin, '/v1/whoami', {})).body.error.details, { reason: 'missingKey' });
  assert.deepEqual((await post(origin, '/v1/whoami', {}, 'bfo_nope')).body.error.details, { reason: 'invalidKey' });
  const unknown = await post(origin, '/v1/noSuchOperation', {}, h.owner.apiKey);
  assert.deepEqual(unknown.body.error.details, { reason: 'unknownOperation', params: { name: 'noSuchOperation' } });
});

test('HTTP: a missing thing names its noun from the closed set, its message as it was', async () => {
  const res = await post(origin, '/v1/getSupplierContact', { supplierKey: '052-999-9999' }, h.owner.apiKey);
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, 'not-found');
  assert.equal(res.body.error.message, 'supplier +972529999999 not found');
  assert.deepEqual(res.body.error.details, { reason: 'notFoundWhat', params: { what: 'supplier' } });
  const folder = await post(origin, '/v1/folderRename', { id: 'nope', name: 'X' }, h.owner.apiKey);
  assert.equal(folder.status, 404);
  assert.deepEqual(folder.body.error.details, { reason: 'notFoundWhat', params: { what: 'folder' } });
});

test('HTTP: refusals that used to fall back to their generic reason now name their own (messages and codes as they were)', async () => {
  const cases: [string, Record<string, unknown>, number, string | undefined, unknown][] = [
    ['listActivity', { cursor: 'nope' }, 400, 'cursor: not a cursor from listActivity (pass nextCursor as it came)', { field: 'cursor', reason: 'badPageToken' }],
    ['spendSummary', { from: '2026-03-01', to: '2026-02-01' }, 400, 'from: 2026-03-01 is after to (2026-02-01)', { field: 'from', reason: 'dateRangeReversed' }],
    ['spendSummary', { from: '2026-02-30', to: '2026-03-01' }, 400, 'from: "2026-02-30" is not a real date (YYYY-MM-DD)', { field: 'from', reason: 'notARealDate', params: { value: '2026-02-30' } }],
    ['createSupplier', { name: 'Dana\u202e Cohen', phone: '050-765-4321' }, 400, undefined, { field: 'name', reason: 'badCharacters' }],
    ['mailboxImportCount', { accountId: 'a1', since: 1_700_000_000 }, 400, undefined, { field: 'since', reason: 'secondsNotMs' }],
  ];
  for (const [op, input, status, message, details] of cases) {
    const res = await post(origin, `/v1/${op}`, input, h.owner.apiKey);
    assert.equal(res.status, status, op);
    if (message) assert.equal(res.body.error.message, message, op);
    assert.deepEqual(res.body.error.details, details, op);
  }
});

test('every reason of the catalogue has an English template that names exactly its params', () => {
  for (const r of REASON_NAMES) {
    const { params, en } = ERROR_REASONS[r];
    assert.ok(en.length > 0, r);
    const named = [...en.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    assert.deepEqual(named, [...params].sort(), `${r}: the template names ${named.join(', ')}`);
  }
});

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown; _meta?: Record<string, unknown> };

for (const [sdk, connect] of [
  [
    '1.x',
    async () => {
      const c = new Client1({ name: 'reasons-sdk1', version: '1.0.0' });
      await c.connect(new Transport1(new URL('/mcp?toolsets=all', origin), { requestInit: { headers: { authorization: `Bearer ${h.owner.apiKey}` } } }));
      return c as unknown as { listTools(): Promise<unknown>; callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>; close(): Promise<void> };
    },
  ],
  [
    '2.x',
    async () => {
      const c = new Client2({ name: 'reasons-sdk2', version: '1.0.0' });
      await c.connect(new Transport2(new URL('/mcp?toolsets=all', origin), { requestInit: { headers: { authorization: `Bearer ${h.owner.apiKey}` } } }));
      return c as unknown as { listTools(): Promise<unknown>; callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>; close(): Promise<void> };
    },
  ],
] as const) {
  test(`MCP SDK ${sdk}: each refusal is isError with {code, message} as text and the details in _meta`, async () => {
    const client = await connect();
    try {
      await client.listTools();
      for (const c of CASES) {
        const res = (await client.callTool({ name: c.op, arguments: c.input })) as ToolResult;
        assert.equal(res.isError, true, c.name);
        assert.equal(res.structuredContent, undefined, c.name);
        const body = JSON.parse(res.content[0]!.text!);
        assert.deepEqual(Object.keys(body).sort(), ['code', 'message'], c.name);
        assert.equal(body.code, c.code, c.name);
        assert.deepEqual(res._meta?.[ERROR_DETAILS_META], c.details(body.message), c.name);
      }
    } finally {
      await client.close();
    }
  });
}

test('MCP: enableToolsets refusals carry their details too', async () => {
  const c = new Client2({ name: 'reasons-enable', version: '1.0.0' });
  await c.connect(new Transport2(new URL('/mcp', origin), { requestInit: { headers: { authorization: `Bearer ${h.owner.apiKey}` } } }));
  try {
    const res = (await c.callTool({ name: 'enableToolsets', arguments: { toolsets: ['nope'] } })) as ToolResult;
    assert.equal(res.isError, true);
    assert.match(JSON.parse(res.content[0]!.text!).message, /unknown nope/);
    const details = res._meta?.[ERROR_DETAILS_META] as { field: string; reason: string; params: { options: string[] } };
    assert.equal(details.field, 'toolsets');
    assert.equal(details.reason, 'notOneOf');
    assert.ok(details.params.options.includes('payments'));
  } finally {
    await c.close();
  }
});
