import sanitizeHtml from 'sanitize-html';
import type { MailPart } from '../../ports/mailbox.ts';
import { decodeHeader } from './mime.ts';

/**
 * One mail as the dashboard shows it: headers, the body as safe HTML, attachment names. The body is
 * data from a stranger: an allow-list sanitizer keeps text formatting and plain links and drops
 * scripts, event handlers, forms, styles and every remote resource (images included).
 */
const charsetOf = (part: MailPart) => /charset="?([^";]+)"?/i.exec(part.headers?.find((h) => h.name?.toLowerCase() === 'content-type')?.value ?? '')?.[1] ?? 'utf-8';

function decodeBody(part: MailPart): string {
  const data = part.body?.data;
  if (!data) return '';
  const bytes = Buffer.from(data, 'base64url');
  try {
    return new TextDecoder(charsetOf(part).toLowerCase()).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

/** The first part of `mime` in the tree (depth first), skipping attachments. */
function findPart(part: MailPart | undefined, mime: string): MailPart | undefined {
  if (!part) return undefined;
  if (part.mimeType?.toLowerCase() === mime && !part.filename) return part;
  for (const p of part.parts ?? []) {
    const found = findPart(p, mime);
    if (found) return found;
  }
  return undefined;
}

function attachmentNames(part: MailPart | undefined, out: string[] = []): string[] {
  if (!part) return out;
  if (part.filename) out.push(part.filename);
  for (const p of part.parts ?? []) attachmentNames(p, out);
  return out;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function sanitizeMailHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: ['p', 'br', 'div', 'span', 'b', 'strong', 'i', 'em', 'u', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code', 'h1', 'h2', 'h3', 'h4', 'table', 'thead', 'tbody', 'tr', 'td', 'th', 'a', 'hr'],
    allowedAttributes: { a: ['href', 'rel', 'target'], td: ['colspan', 'rowspan'], th: ['colspan', 'rowspan'], '*': ['dir'] },
    allowedSchemes: ['https', 'http', 'mailto'],
    // Links open away from the dashboard and tell the sender nothing.
    transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }) },
    disallowedTagsMode: 'discard',
  });
}

export function mailView(payload: MailPart) {
  const header = (name: string) => decodeHeader(payload.headers?.find((h) => h.name?.toLowerCase() === name.toLowerCase())?.value ?? '');
  const html = findPart(payload, 'text/html');
  const plain = findPart(payload, 'text/plain');
  const body = html ? sanitizeMailHtml(decodeBody(html)) : plain ? `<pre dir="auto">${escapeHtml(decodeBody(plain))}</pre>` : '';
  return {
    headers: { from: header('From'), to: header('To'), cc: header('Cc'), subject: header('Subject'), date: header('Date') },
    html: body,
    attachments: attachmentNames(payload),
  };
}

/** The mail's HTML body as sent (for printing its layout; never shown as is), or undefined. */
export function mailHtml(payload: MailPart): string | undefined {
  const html = findPart(payload, 'text/html');
  return html ? decodeBody(html) : undefined;
}

/** The mail's body as plain text: the text part, else the HTML part's text (tags dropped). */
export function mailText(payload: MailPart): string {
  const plain = findPart(payload, 'text/plain');
  if (plain) return decodeBody(plain);
  const html = findPart(payload, 'text/html');
  if (!html) return '';
  const withBreaks = decodeBody(html).replace(/<\s*(br|\/p|\/div|\/tr|\/h\d|\/li)\b[^>]*>/gi, '\n');
  return sanitizeHtml(withBreaks, { allowedTags: [], allowedAttributes: {} }).replace(/&nbsp;/g, ' ').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/\n{3,}/g, '\n\n');
}
