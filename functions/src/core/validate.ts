import type { z } from 'zod';
import { ApiError } from './errors.ts';

const fieldName = (path: PropertyKey[]) => (path.length ? path.map(String).join('.') : 'body');

/** One readable line per problem, each naming the field path, e.g. `amountAgorot: expected an integer`. */
export function describeIssues(error: z.ZodError): string {
  const lines: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(`${fieldName([...issue.path, key])}: unknown field`);
      continue;
    }
    let problem = issue.message;
    if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) problem = 'is required';
    else if (issue.code === 'invalid_type') problem = `expected ${issue.expected === 'int' ? 'an integer' : issue.expected}`;
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

export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ApiError('invalid-argument', describeIssues(parsed.error));
  return parsed.data;
}
