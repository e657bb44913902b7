import type { AnyOperation } from '../../core/defineOperation.ts';
import { jsonSchemaOf, type Schema } from '../openapi/jsonSchema.ts';

/**
 * The schemas of the MCP tool list. A tools/list answer sits in the model's context before the
 * first question, so the tools carry the shape of every field and the OpenAPI keeps the prose and
 * the bounds (docs/decisions.md, "MCP clients and toolsets"):
 * - inputs keep types, enums, required fields, defaults, formats and a one-sentence description
 *   per field; lengths, patterns and numeric bounds are checked by the server, whose refusal names
 *   the field;
 * - outputs keep every field with its type (strings left open), and nothing else; the OpenAPI has
 *   their enum values, bounds and descriptions.
 */

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What an output schema keeps: enough to read and validate a result. */
const OUTPUT_KEYWORDS = new Set(['type', 'properties', 'items', 'prefixItems', 'anyOf', 'oneOf', 'const', 'additionalProperties']);
/** What an input schema drops: enforced by the server, whose refusal names the field and the bound. */
const INPUT_DROPPED = new Set(['maxLength', 'minLength', 'pattern', 'propertyNames', 'maxItems', 'minItems', 'minimum', 'maximum']);
/** Longest field description kept for a tool's input. */
export const FIELD_DESCRIPTION_MAX = 33;

/** The first sentence, at most `max` characters (cut at a word, with an ellipsis). */
export function shortText(text: string, max: number): string {
  // A sentence ends at ". " or "; " (not inside "e.g." or "i.e.").
  const first = /^[\s\S]*?(?<!\be\.g|\bi\.e)[.;](?=\s|$)/.exec(text)?.[0] ?? text;
  const s = first.replace(/[.;]$/, '').trim();
  if (s.length <= max) return s;
  return s.slice(0, max - 1).replace(/\s+\S*$/, '') + '…';
}

function compact(schema: unknown, output: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => compact(s, output));
  if (!isObject(schema)) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (output ? !OUTPUT_KEYWORDS.has(k) : INPUT_DROPPED.has(k)) continue;
    // `false` is the default for unknown fields in neither direction that matters here: inputs are
    // refused by the server when a field is unknown, and outputs are read, not checked, by models.
    if (k === 'additionalProperties' && !isObject(v)) continue;
    if (k === 'description') out[k] = shortText(String(v), FIELD_DESCRIPTION_MAX);
    // An optional string left empty is the same as left out.
    else if (k === 'default' && v === '') continue;
    else if (k === 'properties' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, dropEcho(p, compact(s, output))]));
    else if (k === 'enum' || k === 'const' || k === 'default' || k === 'required') out[k] = v;
    else out[k] = typeof v === 'object' ? compact(v, output) : v;
  }
  return output ? openStrings(out) : out;
}

const FILLER = new Set(['the', 'a', 'an', 'of', 'to', 'for', 'this', 'its', 'is', 'or', 'and', 'in', 'on']);
const words = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w && !FILLER.has(w));

/** A description that only repeats the field's name ("Supplier email" of supplierEmail) or its enum ("admin or user") says nothing. */
function dropEcho(name: string, s: unknown): unknown {
  if (!isObject(s) || typeof s.description !== 'string') return s;
  const own = new Set([...words(name), ...(Array.isArray(s.enum) ? s.enum.flatMap((e) => words(String(e))) : [])]);
  if (!words(s.description).every((w) => own.has(w))) return s;
  const { description: _echo, ...rest } = s;
  return rest;
}

/**
 * In outputs a scalar (string, number, integer, boolean; nullable or not) is left open (`{}`): the
 * field names say what they hold (…Agorot, …At, is…, …Count) and the OpenAPI has their types.
 * Arrays and objects keep their shapes.
 */
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);
function openStrings(s: Schema): Schema {
  const keys = Object.keys(s);
  if (SCALARS.has(s.type as string) && keys.length === 1) return {};
  // A union with an open branch takes anything, and so does an open map of extra fields.
  if (keys.length === 1 && Array.isArray(s.anyOf) && s.anyOf.some((b) => isObject(b) && Object.keys(b).length === 0)) return {};
  if (isObject(s.additionalProperties) && Object.keys(s.additionalProperties).length === 0) {
    const { additionalProperties: _open, ...rest } = s;
    return openStrings(rest);
  }
  // An object is known by its properties and an array by its items, so neither repeats its type; a
  // nullable object is its properties alone (they constrain objects only, so null still passes).
  if (keys.length === 1 && Array.isArray(s.anyOf) && s.anyOf.length === 2) {
    const [a, b] = s.anyOf as unknown[];
    const [obj, nul] = isObject(a) && a.type === 'null' ? [b, a] : [a, b];
    if (isObject(nul) && nul.type === 'null' && Object.keys(nul).length === 1 && isObject(obj) && isObject(obj.properties)) return obj;
  }
  if ((s.type === 'object' && isObject(s.properties)) || (s.type === 'array' && isObject(s.items))) {
    const { type: _implied, ...rest } = s;
    s = rest;
  }
  // An array of open items is just an array (a list of ids, of labels).
  if (s.type === 'array' && isObject(s.items) && Object.keys(s.items).length === 0) {
    const { items: _open, ...rest } = s;
    return rest;
  }
  const branches = s.anyOf as Schema[] | undefined;
  if (keys.length === 1 && branches?.length === 2 && branches.some((b) => b.type === 'null') && branches.some((b) => Object.keys(b).length === 0 || (SCALARS.has(b.type as string) && Object.keys(b).length === 1))) return {};
  return s;
}

/** Objects shorter than this are spelled out wherever they appear. */
const SHARED_MIN_CHARS = 100;

/**
 * The output schemas of one tool list, each record spelled out once: an object (a whole result or a
 * part of one) with the same fields as one already in the list is written as a pointer to it, e.g.
 * `{"description":"Same fields as paymentGet"}` (a tool's result, or a path in it such as `invoicesList.items[]`); an object that has every
 * field of one met before and more (a payment with its send outcome, an invoice with the
 * upload's facts) names that one and spells out only the rest, e.g.
 * `{"type":"object","description":"Same fields as paymentGet, plus:","properties":{"sent":…}}`; one
 * with only some of the fields of one met before names it and the fields it lacks, e.g.
 * `{"description":"Same fields as getBusiness, less: id, apps"}`.
 * Read-only tools are spelled out first, so the pointers lead to the tools that read the records.
 * Outputs declare no `required` and allow other fields, so a pointer never makes a valid result invalid.
 */
export function shareOutputSchemas<T extends { name: string; readOnly: boolean; outputSchema?: Schema }>(tools: T[]): Map<string, Schema> {
  const seen = new Map<string, string>();
  /** Objects met so far with all their fields (an extension's include its base's): what an extension may name. */
  const spelled: { where: string; fields: Map<string, string> }[] = [];
  const out = new Map<string, Schema>();
  /** An object met before with every field (name and schema) of this one and more, named with the fields this one lacks, when that saves enough. */
  function narrowerOf(properties: Schema, chars: number): string | null {
    const own = Object.entries(properties).map(([k, v]) => [k, JSON.stringify(v)] as const);
    let best: { text: string; saved: number } | null = null;
    for (const b of spelled) {
      if (b.fields.size <= own.length || !own.every(([k, v]) => b.fields.get(k) === v)) continue;
      const text = `Same fields as ${b.where}, less: ${[...b.fields.keys()].filter((k) => !(k in properties)).join(', ')}`;
      const saved = chars - text.length - 32;
      if (saved >= SHARED_MIN_CHARS && (!best || saved > best.saved)) best = { text, saved };
    }
    return best?.text ?? null;
  }
  /** The object met before whose fields (name and schema) this one has all of, plus others, that saves the most. */
  function baseOf(properties: Schema): { where: string; rest: Schema } | null {
    let best: { where: string; rest: Schema; saved: number } | null = null;
    for (const b of spelled) {
      if (b.fields.size >= Object.keys(properties).length) continue;
      let covered = 0;
      for (const [k, v] of b.fields) {
        if (!(k in properties) || JSON.stringify(properties[k]) !== v) {
          covered = -1;
          break;
        }
        covered += k.length + v.length + 4;
      }
      const saved = covered - `Same fields as ${b.where}, plus:`.length - 16;
      if (saved >= SHARED_MIN_CHARS && (!best || saved > best.saved)) {
        best = { where: b.where, saved, rest: Object.fromEntries(Object.entries(properties).filter(([k]) => !b.fields.has(k))) };
      }
    }
    return best;
  }
  function visit(s: unknown, where: string): unknown {
    if (Array.isArray(s)) return s.map((x) => visit(x, where));
    if (!isObject(s)) return s;
    let props = s.properties;
    let extends_: string | null = null;
    if (isObject(props)) {
      const key = JSON.stringify(s);
      if (key.length >= SHARED_MIN_CHARS) {
        const first = seen.get(key);
        if (first) return { description: `Same fields as ${first}` };
        seen.set(key, where);
        const narrower = narrowerOf(props, key.length);
        if (narrower) return { description: narrower };
        const base = baseOf(props);
        spelled.push({ where, fields: new Map(Object.entries(props).map(([k, v]) => [k, JSON.stringify(v)])) });
        if (base) {
          extends_ = base.where;
          props = base.rest;
        }
      }
    }
    const r: Schema = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties' && isObject(props)) {
        if (extends_) r.description = `Same fields as ${extends_}, plus:`;
        r[k] = Object.fromEntries(Object.entries(props).map(([p, x]) => [p, visit(x, `${where}.${p}`)]));
      } else if (k === 'items') r[k] = visit(v, `${where}[]`);
      else r[k] = typeof v === 'object' ? visit(v, where) : v;
    }
    return r;
  }
  const order = [...tools.filter((t) => t.readOnly), ...tools.filter((t) => !t.readOnly)];
  // A pointer says what it is in words; only a result's root names its type (MCP wants "object" there).
  for (const t of order) if (t.outputSchema) out.set(t.name, { type: 'object', ...(visit(t.outputSchema, t.name) as Schema) });
  return out;
}

/** Explained once, in the server's instructions. */
const IDEMPOTENCY_ARG = { type: 'string' };

/** A tool's inputSchema: the operation's input, plus idempotencyKey on open-world mutating tools that are not idempotent. */
export function toolInputSchema(op: AnyOperation): Schema {
  const schema = compact(jsonSchemaOf(op.input, 'input'), false) as Schema;
  // Every mutating tool accepts idempotencyKey (stripped before the operation sees its input); it is
  // listed where a retry could reach the world twice (a message, a payment, a provider): an idempotent
  // tool's retry changes nothing more, and a closed-world one's repeat stays in the business's records.
  if (!op.flags.readOnly && !op.flags.idempotent && op.flags.openWorld) schema.properties = { ...(schema.properties as object), idempotencyKey: IDEMPOTENCY_ARG };
  return { ...schema, type: 'object' };
}

/**
 * Every field of the operation's result, typed, without prose (the tool's outputSchema when it is an
 * object). A union of objects (uploadInvoiceDoc: the document, or skipped) becomes one object with
 * the fields of every branch: MCP wants `type: "object"` at the root, and Gemini's converter refuses
 * a type beside `anyOf`.
 */
export function toolOutputSchema(op: AnyOperation): Schema {
  const compacted = compact(jsonSchemaOf(op.output, 'output'), true) as Schema;
  // MCP wants `type: "object"` at an output schema's root, so the root says it even with properties.
  const s = isObject(compacted.properties) ? { ...compacted, type: 'object' } : compacted;
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (!branches?.length || !branches.every((b) => isObject(b.properties))) return s;
  const properties: Schema = {};
  for (const b of branches) {
    for (const [k, v] of Object.entries(b.properties as Schema)) {
      // A field typed differently by two branches is left open.
      properties[k] = k in properties && JSON.stringify(properties[k]) !== JSON.stringify(v) ? {} : v;
    }
  }
  return { type: 'object', properties };
}

/**
 * An output schema written as one line of field notation in its description, the last step of the list: the
 * fields and their nesting stay, the JSON around each field goes (`"id":{}` becomes `id`; 7,900 characters
 * of `?toolsets=all`). Outputs are read, not checked: they allow any value. The notation:
 * `{a, b{c, d}, e[]{f}, g[], h(Same fields as paymentGet), i=true, j{*}, k{*{l}}, m<{n}|{o}>, p<{*}|null>}`:
 * `{…}` an object's fields, `[]` an array of what follows, `(…)` words (a pointer), `=` a constant, `{*…}` an
 * open map of what follows, `<…|…>` one of. A field with nothing after its name holds a plain value.
 */
export function notationOf(s: unknown): string {
  if (!isObject(s)) return '';
  const words = typeof s.description === 'string' ? `(${checkedWords(s.description)})` : '';
  if (isObject(s.properties)) return words + `{${Object.entries(s.properties).map(([k, v]) => k + notationOf(v)).join(', ')}}`;
  if (isObject(s.items)) return words + '[]' + notationOf(s.items);
  if ('const' in s) return words + '=' + JSON.stringify(s.const);
  if (Array.isArray(s.anyOf)) return words + `<${s.anyOf.map((b) => notationOf(b)).join('|')}>`;
  if (s.type === 'null') return words + 'null';
  if (s.type === 'object') return words + `{*${notationOf(s.additionalProperties)}}`;
  if (s.type === 'array') return words + '[]';
  return words;
}

/** Pointer words go inside parentheses, so they must hold none. */
function checkedWords(text: string): string {
  if (/[()]/.test(text)) throw new Error(`an output description in MCP notation cannot hold parentheses: ${text}`);
  return text;
}

/** A tool's outputSchema in notation: a pointer stays as it is; otherwise the fields go into the description. */
export function notatedOutput(s: Schema): Schema {
  const keys = Object.keys(s).filter((k) => k !== 'type');
  if (keys.length === 1 && keys[0] === 'description') return { type: 'object', description: s.description };
  const { type: _root, ...rest } = s;
  return { type: 'object', description: notationOf(rest) };
}
