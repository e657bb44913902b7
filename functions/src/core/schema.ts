import { z } from 'zod';
import { freeTextProblem, sanitizeFileName } from './text.ts';

/**
 * Building blocks for operation input schemas. Every string has a maximum length so that
 * oversized input is refused by validation, before any handler runs.
 */
export const LIMITS = {
  shortText: 200,
  text: 2000,
  id: 128,
  email: 254,
  /** A 5 MB file in base64. */
  fileBytes: 5 * 1024 * 1024,
} as const;

/** One line of text: no control characters (line breaks included) and no bidi overrides (core/text.ts). */
export const text = (max: number = LIMITS.shortText) =>
  z
    .string()
    .max(max)
    .superRefine((s, ctx) => {
      const problem = freeTextProblem(s, false);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { reason: 'badCharacters' } });
    });
/** An uploaded file's name: kept, but made safe (path parts, controls and bidi overrides removed; core/text.ts). */
export const fileName = () => z.string().max(255).trim().min(1).transform((s) => sanitizeFileName(s, 'file'));
/** Free text where a new line makes sense (descriptions, notes): `\n` allowed, other controls and bidi overrides not. */
export const multilineText = (max: number = LIMITS.text) =>
  z
    .string()
    .max(max)
    .superRefine((s, ctx) => {
      const problem = freeTextProblem(s, true);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { reason: 'badCharacters' } });
    });
/** A record id: one path segment, so it can never reach another document. */
export const id = () => z.string().min(1).max(LIMITS.id).regex(/^(?!\.\.?$)[^/]+$/, 'not a valid id');
// The format travels to the OpenAPI and MCP schemas (a pipe's input side would lose it).
export const email = () => z.string().max(LIMITS.email).pipe(z.email()).transform((s) => s.toLowerCase()).meta({ format: 'email' });
/** An email the operation trims and checks itself (normalizeEmail names the field); documented as one. */
export const emailText = () => text(LIMITS.email).meta({ format: 'email' });
/** As emailText, or "" (which clears or means none). */
export const emailOrEmpty = () => z.union([z.literal(''), emailText()]);
export const bool = () => z.boolean();
export const int = () => z.int();
export const month = () => z.string().max(7).regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM');
export const day = () => z.string().max(10).regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');
export const unixMs = () => z.int().min(0);
/** 2000-01-01T00:00:00Z in milliseconds; a smaller moment of mail or money is unix seconds sent by mistake. */
export const Y2000_MS = 946_684_800_000;
/**
 * A recent moment in unix ms. Seconds (1.7e9) would read as January 1970 and make an import read the
 * whole mailbox, so anything before 2000 is refused with the fix.
 */
export const recentUnixMs = () =>
  z
    .int()
    .min(0)
    .superRefine((v, ctx) => {
      if (v < Y2000_MS) ctx.addIssue({ code: 'custom', message: `${v} is before the year 2000 in milliseconds; send unix milliseconds, not seconds (e.g. ${v * 1000} if you meant seconds)`, params: { reason: 'secondsNotMs' } });
    });

/**
 * A credential that travels in an HTTP header (API tokens, keys): printable ASCII without spaces, as providers issue
 * them. Anything else (a Hebrew letter, a control character pasted along) is refused here, naming the field, rather
 * than failing inside the HTTP client.
 */
export const headerCredential = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, 'must be pasted exactly as issued: printable ASCII characters without spaces (another character was pasted along)');
/** A credential sent inside a request body (API user names, passwords): any characters but control characters. */
export const bodyCredential = (max: number, opts: { trim?: boolean } = {}) =>
  (opts.trim ? z.string().trim() : z.string())
    .min(1)
    .max(max)
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters');

/** Base64 of at most `maxBytes` decoded bytes, without a `data:` prefix. */
export const base64 = (maxBytes: number = LIMITS.fileBytes) =>
  z
    .string()
    .max(Math.ceil(maxBytes / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64 without a data: prefix');

/** Page parameters shared by list operations (spec §8). */
export const page = {
  limit: z.int().min(1).max(200).default(50),
  offset: z.int().min(0).max(100_000).default(0),
};

/** Input objects refuse unknown fields, so a typo is an error rather than silently ignored. */
export const input = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape);
export const empty = () => z.strictObject({});
