import type { z } from 'zod';
import { closest, distance } from 'fastest-levenshtein';
import { ApiError } from './errors.ts';
import type { ErrorDetails } from './errorReasons.ts';

const fieldName = (path: PropertyKey[]) => (path.length ? path.map(String).join('.') : 'body');

/** The names an object schema accepts at `path` (through optional, default, nullable, pipe and array wrappers). */
function fieldsAt(schema: z.ZodType | undefined, path: PropertyKey[]): string[] {
  let s: any = schema;
  const unwrap = () => {
    for (let i = 0; s && i < 10; i++) {
      const def = s._zod?.def;
      if (def?.innerType) s = def.innerType;
      else if (def?.type === 'pipe') s = def.in;
      else break;
    }
  };
  unwrap();
  for (const key of path) {
    const def = s?._zod?.def;
    s = def?.type === 'array' ? def.element : def?.type === 'object' ? def.shape?.[key as string] : undefined;
    unwrap();
  }
  const def = s?._zod?.def;
  return def?.type === 'object' ? Object.keys(def.shape) : [];
}

/** "did you mean …" for a near miss, and the valid names when they are few enough to read. */
function unknownFieldHint(key: string, valid: string[]): string {
  if (!valid.length) return '';
  const near = closest(key.toLowerCase(), valid.map((v) => v.toLowerCase()));
  const match = valid.find((v) => v.toLowerCase() === near)!;
  const close = distance(key.toLowerCase(), near) <= Math.max(2, Math.floor(near.length / 3));
  const suggestion = close ? ` (did you mean ${match}?)` : '';
  const list = valid.length <= 25 ? `; valid fields: ${valid.join(', ')}` : '';
  return suggestion + list;
}

/** Integer fields of money are in minor units; a decimal there is almost always major units sent by mistake. */
const MINOR_UNITS = /agorot$/i;

/** One readable line per problem, each naming the field path, e.g. `amountAgorot: expected an integer`. */
export function describeIssues(error: z.ZodError, schema?: z.ZodType): string {
  const lines: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const valid = fieldsAt(schema, issue.path);
      for (const key of issue.keys) lines.push(`${fieldName([...issue.path, key])}: unknown field${unknownFieldHint(key, valid)}`);
      continue;
    }
    let problem = issue.message;
    const last = String(issue.path.at(-1) ?? '');
    if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) problem = 'is required';
    else if (issue.code === 'invalid_type' && issue.expected === 'int' && MINOR_UNITS.test(last)) {
      problem = 'expected an integer: amounts are in agorot (cents for USD and EUR), e.g. 1250 for 12.50';
    } else if (issue.code === 'invalid_type') problem = `expected ${issue.expected === 'int' ? 'an integer' : issue.expected}`;
    else if (issue.code === 'invalid_value') problem = `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    else if (issue.code === 'too_big' && issue.origin === 'string') problem = `at most ${issue.maximum} characters`;
    else if (issue.code === 'too_big' && issue.origin === 'array') problem = `at most ${issue.maximum} items`;
    else if (issue.code === 'too_big') problem = `must be at most ${issue.maximum}`;
    else if (issue.code === 'too_small' && issue.origin === 'array') problem = `at least ${issue.minimum} items`;
    else if (issue.code === 'invalid_format' && issue.format === 'email') problem = 'expected an email address';
    else if (issue.code === 'too_small' && issue.origin === 'string') problem = issue.minimum === 1 ? 'must not be empty' : `at least ${issue.minimum} characters`;
    else if (issue.code === 'too_small') problem = `must be at least ${issue.minimum}`;
    lines.push(`${fieldName(issue.path)}: ${problem}`);
  }
  return lines.slice(0, 20).join('; ');
}

/** The details of one issue: its field and the catalogue reason of its kind, with the bound or options as params. */
export function issueDetails(issue: z.core.$ZodIssue): ErrorDetails {
  const field = issue.code === 'unrecognized_keys' ? fieldName([...issue.path, issue.keys[0]!]) : fieldName(issue.path);
  const at = field === 'body' ? {} : { field };
  const last = String(issue.path.at(-1) ?? '');
  const bound = (v: unknown) => (typeof v === 'bigint' ? Number(v) : (v as number));
  switch (issue.code) {
    case 'unrecognized_keys':
      return { ...at, reason: 'unknownField' };
    case 'invalid_type':
      if (/received undefined/.test(issue.message)) return { ...at, reason: 'required' };
      if (issue.expected === 'int') return { ...at, reason: MINOR_UNITS.test(last) ? 'notIntegerAgorot' : 'notInteger' };
      return { ...at, reason: 'wrongType', params: { expected: String(issue.expected) } };
    case 'invalid_value':
      return { ...at, reason: 'notOneOf', params: { options: issue.values.map((v) => String(v)) } };
    case 'too_big':
      if (issue.origin === 'string') return { ...at, reason: 'tooLong', params: { max: bound(issue.maximum) } };
      if (issue.origin === 'array') return { ...at, reason: 'tooMany', params: { max: bound(issue.maximum) } };
      return { ...at, reason: 'tooLarge', params: { max: bound(issue.maximum) } };
    case 'too_small':
      if (issue.origin === 'string') return issue.minimum === 1 ? { ...at, reason: 'empty' } : { ...at, reason: 'tooShort', params: { min: bound(issue.minimum) } };
      if (issue.origin === 'array') return { ...at, reason: 'tooFew', params: { min: bound(issue.minimum) } };
      return { ...at, reason: 'tooSmall', params: { min: bound(issue.minimum) } };
    case 'invalid_format':
      return issue.format === 'email' ? { ...at, reason: 'badEmail' } : { ...at, reason: 'badFormat', params: { format: String(issue.format) } };
    case 'custom':
      // Our own refinements (core/schema.ts) name their reason in the issue's params.
      return issue.params?.reason === 'badCharacters' || issue.params?.reason === 'secondsNotMs' ? { ...at, reason: issue.params.reason } : { ...at, reason: 'invalidValue' };
    default:
      return { ...at, reason: 'invalidValue' };
  }
}

export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  // The message lists every problem; the details name the first (the one a form shows under its field).
  if (!parsed.success) throw new ApiError('invalid-argument', describeIssues(parsed.error, schema), issueDetails(parsed.error.issues[0]!));
  return parsed.data;
}
