import { z } from 'zod';
import type { Registry } from '../../operations/index.ts';
import type { Config } from '../../config.ts';
import type { AnyOperation } from '../../core/defineOperation.ts';
import { ERROR_CODES, ERROR_STATUS } from '../../core/errors.ts';
import { inputProperties } from '../http/query.ts';

type Schema = Record<string, unknown>;

const toSchema = (s: z.ZodType, io: 'input' | 'output'): Schema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Schema;
  return rest;
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

function responses(op: AnyOperation) {
  const out: Record<string, unknown> = {
    '200': {
      description: 'Success',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['ok', 'result'],
            properties: { ok: { const: true }, result: toSchema(op.output, 'output') },
          },
        },
      },
    },
    '400': errorResponse('invalid-argument, failed-precondition or out-of-range; the message names the field'),
    '401': errorResponse('unauthenticated: missing, invalid or revoked API key'),
    '403': errorResponse('permission-denied: admin role required, or the membership was removed'),
    '404': errorResponse('not-found'),
    '409': errorResponse('already-exists or aborted'),
    '413': errorResponse('the body is over the size limit'),
    '429': errorResponse('resource-exhausted: a daily quota is used up'),
    '500': errorResponse('internal; the message carries the request id'),
  };
  return out;
}

/** GET parameters: scalars as text, arrays as repeated keys (form, explode), objects as JSON text. */
function parameters(op: AnyOperation) {
  const schema = toSchema(op.input, 'input') as { required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.entries(inputProperties(op)).map(([name, s]) => {
    const t = (s as { type?: string }).type;
    if (t === 'object') {
      return { name, in: 'query', required: required.has(name), content: { 'application/json': { schema: s } } };
    }
    return { name, in: 'query', required: required.has(name), style: 'form', explode: true, schema: s };
  });
}

/** The OpenAPI 3.1 document of every operation, derived from the registry alone. */
export function buildOpenApi(registry: Registry, config: Pick<Config, 'baseUrl' | 'aliasUrl' | 'directUrl'>) {
  const paths: Record<string, unknown> = {
    '/': {
      get: {
        operationId: 'catalogue',
        summary: 'The catalogue: every operation with its group, flags and summary',
        security: [],
        responses: { '200': { description: 'The catalogue', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document',
        security: [],
        responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
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
      description:
        'Every operation is POST {base}/<operation> with a JSON body (always send at least {}). Read-only operations also answer GET with the fields in the query string: numbers and booleans as text, arrays as repeated keys (ids=a&ids=b), objects as JSON text in one parameter.',
    },
    servers: [{ url: config.baseUrl }, { url: config.aliasUrl }, { url: config.directUrl, description: 'direct, for long calls' }],
    security: [{ bearer: [] }],
    tags: [...new Set([...registry.values()].map((op) => op.group))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key, prefixed bfo_' } },
      schemas: {
        ErrorEnvelope: {
          type: 'object',
          required: ['ok', 'error'],
          properties: {
            ok: { const: false },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string', enum: ERROR_CODES }, message: { type: 'string' } },
            },
          },
        },
      },
      'x-error-statuses': ERROR_STATUS,
    },
  };
}
