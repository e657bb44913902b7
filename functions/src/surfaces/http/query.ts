import { z } from 'zod';
import type { AnyOperation } from '../../core/defineOperation.ts';

type JsonSchema = { type?: string | string[]; items?: JsonSchema; anyOf?: JsonSchema[]; properties?: Record<string, JsonSchema> };

const schemas = new WeakMap<AnyOperation, Record<string, JsonSchema>>();

/** The JSON Schema of each input property, computed once per operation. */
export function inputProperties(op: AnyOperation): Record<string, JsonSchema> {
  let props = schemas.get(op);
  if (!props) {
    const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    props = schema.properties ?? {};
    schemas.set(op, props);
  }
  return props;
}

function kind(s: JsonSchema | undefined): string {
  if (!s) return 'string';
  if (s.anyOf) return kind(s.anyOf.find((x) => x.type !== 'null'));
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  return t ?? 'string';
}

function scalar(value: string, s: JsonSchema | undefined): unknown {
  switch (kind(s)) {
    case 'integer':
    case 'number':
      return /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'null':
      return value === 'null' ? null : value;
    case 'object':
    case 'array':
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    default:
      return value;
  }
}

/**
 * GET query string → input object, coerced by the schema's types:
 * numbers and booleans from their text, arrays as repeated keys (`ids=a&ids=b`),
 * objects as JSON text in one parameter. Anything that does not coerce is left
 * as text, so validation names the field.
 */
export function queryToInput(op: AnyOperation, query: string): Record<string, unknown> {
  const params = new URLSearchParams(query);
  const props = inputProperties(op);
  const entries: [string, unknown][] = [];
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    const s = Object.hasOwn(props, key) ? props[key] : undefined;
    if (kind(s) === 'array') {
      entries.push([key, values.map((v) => scalar(v, s?.items))]);
    } else {
      entries.push([key, values.length === 1 ? scalar(values[0], s) : values]);
    }
  }
  // fromEntries defines own properties, so a `__proto__` key stays an ordinary (rejected) field.
  return Object.fromEntries(entries);
}
