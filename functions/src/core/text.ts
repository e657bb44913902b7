/**
 * Text that reaches people and files: one sanitizer for file names and one rule for free text.
 * Control characters and bidi overrides in a name can forge an email subject, hide an extension
 * ("invoice\u202Efdp.exe") or break a ZIP entry; path parts in a file name become zip-slip in exports.
 */

/** Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). Marks (LRM, RLM) are fine. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g;
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/;

/** Why `s` is not acceptable free text, or null. Single-line unless `multiline` (then `\n` is allowed; `\r\n` is normalised first). */
export function freeTextProblem(s: string, multiline: boolean): string | null {
  const t = multiline ? s.replace(/\r\n/g, '\n') : s;
  if ((multiline ? CONTROLS_BUT_NEWLINE : /[\u0000-\u001F\u007F-\u009F]/).test(t)) return multiline ? 'control characters other than a new line are not allowed' : 'control characters (including line breaks) are not allowed';
  if (/[\u202A-\u202E\u2066-\u2069]/.test(t)) return 'bidirectional override characters are not allowed';
  if (!t.isWellFormed()) return 'not valid Unicode';
  return null;
}

const MAX_FILE_NAME = 120;

/**
 * A file name safe to store, show, mail and put in a ZIP: the last path part only, without control or
 * bidi characters and reserved punctuation, not `.`/`..`, at most 120 characters (the extension kept),
 * and never empty (`fallback`, e.g. `invoice.pdf`).
 */
export function sanitizeFileName(name: string, fallback = 'file'): string {
  let base = (name ?? '').split(/[\\/]/).pop() ?? '';
  base = base.replace(CONTROLS, '').replace(BIDI_CONTROLS, '').replace(/["<>|:*?]/g, '').normalize('NFC').trim();
  base = base.replace(/^\.+/, '').trim(); // no hidden files, no "." or ".."
  if (!base.isWellFormed()) base = base.toWellFormed();
  const chars = Array.from(base);
  if (chars.length > MAX_FILE_NAME) {
    const dot = base.lastIndexOf('.');
    const ext = dot > 0 && base.length - dot <= 10 ? base.slice(dot) : '';
    base = Array.from(base.slice(0, base.length - ext.length)).slice(0, MAX_FILE_NAME - ext.length).join('') + ext;
  }
  return base || fallback;
}
