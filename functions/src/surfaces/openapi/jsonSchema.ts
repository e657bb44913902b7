import { z } from 'zod';

export type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A type list (`{"type":["string","null"]}`, zod's form for a nullable scalar) as `anyOf` of one
 * schema per type. Gemini's function declarations take one type per schema, and the tool converters
 * of @google/genai and @ai-sdk/google both map `anyOf` with a `null` branch to `nullable: true`.
 * The keywords that belong to a type go with it (a string's maxLength to the string branch).
 */
export function typeListsAsAnyOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(typeListsAsAnyOf);
  if (!isObject(schema)) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, typeListsAsAnyOf(s)]));
    else if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples' || k === 'required') out[k] = v;
    else out[k] = typeof v === 'object' ? typeListsAsAnyOf(v) : v;
  }
  if (!Array.isArray(out.type)) return out;
  const { type, description, ...rest } = out as { type: string[]; description?: string };
  const branches = type.map((t) => (t === 'null' ? { type: 'null' } : { type: t, ...rest }));
  return { ...(description !== undefined ? { description } : {}), anyOf: branches };
}

/** The JSON Schema of a zod schema as every surface emits it: no `$schema`, nullables as `anyOf`. */
export function jsonSchemaOf(s: z.ZodType, io: 'input' | 'output'): Schema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Schema;
  return typeListsAsAnyOf(rest) as Schema;
}
