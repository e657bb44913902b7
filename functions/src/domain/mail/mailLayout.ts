import { Parser } from 'htmlparser2';

/**
 * A mail body as blocks a printer can lay out: paragraphs of text, and tables as rows of cells. Receipts
 * put their items in HTML tables; dropping the tags glued the cells together ("פריטכמותמחיר").
 * htmlparser2 is the parser sanitize-html uses; scripts, styles and heads are skipped as data never shown.
 * A table that holds another table is layout, not data: its own cells print as paragraphs, in order.
 */
export type MailBlock = { kind: 'text'; text: string } | { kind: 'table'; rows: string[][]; header: boolean };

const BREAKS = new Set(['br', 'p', 'div', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'hr', 'section', 'article', 'header', 'footer']);
const HIDDEN = new Set(['script', 'style', 'head', 'title', 'template', 'noscript']);
/** A printed receipt never needs more; a hostile mail cannot make the printer draw forever. */
const MAX_ROWS = 500;
const MAX_CELLS = 20;

const squeeze = (s: string) => s.replace(/[ \t\f\v\u00a0]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n').trim();

interface OpenTable {
  rows: string[][];
  row: string[] | null;
  cell: string | null;
  header: boolean;
  layout: boolean;
}

export function mailBlocks(html: string): MailBlock[] {
  const blocks: MailBlock[] = [];
  let text = '';
  let hidden = 0;
  const tables: OpenTable[] = [];
  const flushText = () => {
    const t = squeeze(text);
    if (t) blocks.push({ kind: 'text', text: t });
    text = '';
  };
  /** What a table has gathered so far, as lines of text (a layout table, or one cut short). */
  const spill = (t: OpenTable) => {
    const rows = [...t.rows, ...(t.row ? [[...t.row, ...(t.cell !== null ? [t.cell] : [])]] : [])];
    text += '\n' + rows.map((r) => r.map((c) => squeeze(c)).filter(Boolean).join(' ')).join('\n') + '\n';
    t.rows = [];
    t.row = t.row ? [] : null;
    if (t.cell !== null) t.cell = '';
  };
  const write = (s: string) => {
    const t = tables.at(-1);
    if (t && t.cell !== null) t.cell += s;
    else text += s;
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (HIDDEN.has(name)) hidden++;
        if (hidden) return;
        const t = tables.at(-1);
        if (name === 'table') {
          if (t) {
            t.layout = true;
            spill(t);
          }
          flushText();
          tables.push({ rows: [], row: null, cell: null, header: false, layout: false });
        } else if (name === 'tr' && t) {
          t.row = [];
        } else if ((name === 'td' || name === 'th') && t) {
          t.row ??= [];
          t.cell = '';
          if (name === 'th' && t.rows.length === 0) t.header = true;
        } else if (BREAKS.has(name)) {
          write('\n');
        }
      },
      ontext(data) {
        if (!hidden) write(data);
      },
      onclosetag(name) {
        if (HIDDEN.has(name)) {
          hidden = Math.max(0, hidden - 1);
          return;
        }
        if (hidden) return;
        const t = tables.at(-1);
        if ((name === 'td' || name === 'th') && t && t.cell !== null) {
          if (t.row && t.row.length < MAX_CELLS) t.row.push(squeeze(t.cell).replace(/\n/g, ' '));
          t.cell = null;
        } else if (name === 'tr' && t && t.row) {
          if (t.row.some((c) => c) && t.rows.length < MAX_ROWS) t.rows.push(t.row);
          t.row = null;
        } else if (name === 'table' && t) {
          tables.pop();
          const width = Math.max(0, ...t.rows.map((r) => r.length));
          if (t.layout || width <= 1) {
            spill(t);
          } else {
            flushText();
            blocks.push({ kind: 'table', rows: t.rows, header: t.header });
          }
        } else if (BREAKS.has(name)) {
          write('\n');
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  while (tables.length) spill(tables.pop()!);
  flushText();
  return blocks;
}

/** A plain-text body is one block. */
export const textBlocks = (text: string): MailBlock[] => {
  const t = text.replace(/\r\n?/g, '\n').trim();
  return t ? [{ kind: 'text', text: t }] : [];
};
