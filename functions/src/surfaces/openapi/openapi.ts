import type { z } from 'zod';
import type { Registry } from '../../operations/index.ts';
import type { Config } from '../../config.ts';
import type { AnyOperation } from '../../core/defineOperation.ts';
import { ERROR_CODES, ERROR_STATUS } from '../../core/errors.ts';
import { ERROR_REASONS, REASON_NAMES } from '../../core/errorReasons.ts';
import { inputProperties } from '../http/query.ts';
import { jsonSchemaOf, typeListsAsAnyOf } from './jsonSchema.ts';
import { describeFields } from './fieldGlossary.ts';

const toSchema = (s: z.ZodType, io: 'input' | 'output') => jsonSchemaOf(s, io);

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

/** Headers every API response carries (docs/decisions.md). */
const RATE_HEADERS = {
  'RateLimit-Policy': { description: 'Each limit that applies to the caller, e.g. "per-key";q=600;w=60, "per-user";q=1200;w=60, "per-business";q=3000;w=60 (draft-ietf-httpapi-ratelimit-headers; no per-key policy for a dashboard ID token).', schema: { type: 'string' } },
  RateLimit: { description: 'What is left of each policy in this window: "per-key";r=<remaining>;t=<seconds to reset>, "per-user";r=…;t=…, "per-business";r=…;t=….', schema: { type: 'string' } },
};

function responses(op: AnyOperation) {
  const out: Record<string, unknown> = {
    '200': {
      description: 'Success',
      headers: {
        ...RATE_HEADERS,
        ...(op.flags.readOnly ? {} : { 'Idempotent-Replayed': { description: 'true when this is the stored response of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } } }),
      },
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['ok', 'result'],
            properties: { ok: { const: true }, result: describeFields(toSchema(op.output, 'output')) },
          },
        },
      },
    },
    '400': errorResponse('invalid-argument, failed-precondition or out-of-range; the message names the field'),
    '401': errorResponse('unauthenticated: missing, invalid or revoked API key, or an invalid or expired ID token or one without a verified email'),
    '403': errorResponse('permission-denied: admin role required, or the membership was removed'),
    '404': errorResponse('not-found'),
    '409': errorResponse('already-exists or aborted'),
    '405': errorResponse('the method is not allowed here (read-only operations also take GET; the rest only POST); see the Allow header'),
    '413': errorResponse('the body is over the size limit'),
    '429': {
      ...errorResponse('resource-exhausted: a rate limit (per key, per user or per business) or a daily quota is used up'),
      headers: { ...RATE_HEADERS, 'Retry-After': { description: 'Seconds until the limit or quota resets (a daily quota at midnight in Israel).', schema: { type: 'integer' } } },
    },
    '500': errorResponse('internal; the message carries the request id'),
    // The functions entry answers 503 while the service cannot start (a missing secret, say).
    '503': errorResponse(
      op.flags.openWorld
        ? 'unavailable: a third party this operation calls (a provider, the mail or AI service) could not be reached or answered 5xx; nothing was changed, retry later. Also while the service is starting or misconfigured.'
        : 'unavailable: the service is starting or misconfigured; retry later (the message carries a request id)',
    ),
  };
  return out;
}

/**
 * GET parameters: scalars as text, arrays as repeated keys (form, explode), objects as JSON text. The field's
 * description is the parameter's (where readers and generators look for it), not repeated in its schema.
 */
function parameters(op: AnyOperation) {
  const schema = toSchema(op.input, 'input') as { required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.entries(inputProperties(op)).map(([name, raw]) => {
    const { description, ...s } = typeListsAsAnyOf(raw) as Record<string, unknown>;
    const head = { name, in: 'query', ...(typeof description === 'string' ? { description } : {}), required: required.has(name) };
    if ((s as { type?: string }).type === 'object') return { ...head, content: { 'application/json': { schema: s } } };
    return { ...head, style: 'form', explode: true, schema: s };
  });
}

/** What each group of operations is about (OpenAPI tags). */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  account: 'The business profile, apps, the standing request link, provider credentials and the tax authority consent.',
  activity: 'The activity log.',
  payments: 'Payment requests to suppliers: create, send, settle, and the payments other businesses addressed to this one.',
  suppliers: 'Suppliers and freelancers, their private cards, and AI supplier suggestions.',
  invoices: 'Invoice documents read by AI: upload, duplicates, pay marks, categories, issuer rules, and mails imported from mailboxes.',
  folders: 'Invoice folders and the rules that file invoices into them.',
  software: 'Card-paid software tools.',
  team: 'Team members, roles and invites.',
  mailboxes: 'Connected mailboxes, invoice imports and mailbox automations.',
  statements: 'Monthly statements from connected sources, month packages and ZIPs.',
  employees: 'Employees, typed in or imported from the workplace chat tool.',
  signupDocs: 'Supplier onboarding forms filled by AI, with signature, stamp and initials.',
  accountant: 'The accountant folder tree and its ZIP packages.',
  payruns: 'Payment runs: ready payments paid together, with the MASAV file and the bank spreadsheets.',
  recurring: 'Recurring payment requests: a schedule makes and sends one request a month, week or year.',
  reports: 'Spend reports: invoice totals by month and by category, supplier or pay method, as JSON or CSV.',
};

/** Safe retries of mutating calls (docs/decisions.md "Beyond the spec"). */
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Up to 255 visible ASCII characters. A repeat with the same key, caller and operation within 24 hours returns the stored response (header Idempotent-Replayed: true) without running again; ' +
    'the same key with another body is 400; while the first still runs, 409 aborted (retry).',
  schema: { type: 'string', maxLength: 255 },
};

const dedupeServers = (servers: { url: string; description: string }[]) =>
  servers.filter((s, i) => servers.findIndex((o) => o.url === s.url) === i);

/** The OpenAPI 3.1 document of every operation, derived from the registry alone. */
/** Each reason of the catalogue with its params and English template. */
const REASON_DOC = `What went wrong, from a closed catalogue (a throw without a reason of its own gets its code's generic one):\n\n${REASON_NAMES.map((r) => {
  const { params, en } = ERROR_REASONS[r];
  return `- \`${r}\`${params.length ? ` (${params.join(', ')})` : ''}: ${en}`;
}).join('\n')}`;

export function buildOpenApi(registry: Registry, config: Pick<Config, 'baseUrl' | 'aliasUrl' | 'directUrl'>) {
  const paths: Record<string, unknown> = {
    '/': {
      get: {
        operationId: 'catalogue',
        summary: 'The catalogue: every operation with its group, flags and summary',
        description:
          'Every operation of this API as JSON: its name, group, summary, flags (readOnly, dangerous, adminOnly) and methods (POST, and GET for read-only ones). No key needed; the OpenAPI document (/openapi.json) has the schemas.',
        security: [],
        responses: {
          '200': { description: 'The catalogue', content: { 'application/json': { schema: { type: 'object' } } } },
          '405': errorResponse('only GET'),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document',
        description: 'This OpenAPI 3.1 document, built from the operation registry: every operation with its input, result and error schemas. No key needed.',
        security: [],
        responses: {
          '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } },
          '405': errorResponse('only GET'),
        },
      },
    },
  };
  for (const op of registry.values()) {
    const common = {
      tags: [op.group],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      'x-flags': { readOnly: Boolean(op.flags.readOnly), dangerous: Boolean(op.flags.dangerous), adminOnly: Boolean(op.flags.adminOnly) },
      responses: responses(op),
    };
    const item: Record<string, unknown> = {
      post: {
        ...common,
        operationId: op.name,
        requestBody: { required: true, content: { 'application/json': { schema: toSchema(op.input, 'input') } } },
        ...(op.flags.readOnly ? {} : { parameters: [IDEMPOTENCY_HEADER] }),
      },
    };
    if (op.flags.readOnly) item.get = { ...common, operationId: `${op.name}Get`, parameters: parameters(op) };
    paths[`/${op.name}`] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Business Finance Operations API',
      version: '1',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'Every operation is POST {base}/<operation> with a JSON body (always send at least {}). Read-only operations also answer GET with the fields in the query string: numbers and booleans as text, arrays as repeated keys (ids=a&ids=b), objects as JSON text in one parameter.',
    },
    // Locally the three base addresses may coincide: each is listed once.
    servers: dedupeServers([
      { url: config.baseUrl, description: 'base address (Hosting)' },
      { url: config.aliasUrl, description: 'alias address' },
      { url: config.directUrl, description: 'direct address: the function itself, for long calls (no 60 s Hosting limit)' },
    ]),
    security: [{ bearer: [] }],
    tags: [...new Set([...registry.values()].map((op) => op.group))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations of the ${name} group.` })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key (bfo_ + 43 characters), or for the dashboard a Firebase Auth ID token of a member with a verified email; a member of several businesses also sends X-Business-Id: <businessId>. acceptInvite takes an ID token only.' } },
      schemas: {
        ErrorEnvelope: {
          type: 'object',
          required: ['ok', 'error'],
          properties: {
            ok: { const: false },
            error: {
              type: 'object',
              required: ['code', 'message', 'details'],
              properties: {
                code: { type: 'string', enum: ERROR_CODES },
                message: { type: 'string', description: 'English, for people and models; clients word the error from details instead.' },
                details: {
                  type: 'object',
                  required: ['reason'],
                  properties: {
                    field: { type: 'string', description: 'The input field the error is about (a dotted path inside objects), when there is one.' },
                    reason: { type: 'string', enum: REASON_NAMES, description: REASON_DOC },
                    params: {
                      type: 'object',
                      description: "The reason's values, named as in its template.",
                      additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }] },
                    },
                  },
                },
              },
            },
          },
        },
      },
      'x-error-statuses': ERROR_STATUS,
    },
  };
}
