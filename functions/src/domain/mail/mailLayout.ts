import { Parser } from 'htmlparser2';

/**
 * A mail body as blocks a printer can lay out: paragraphs of text, and tables as rows of cells. Receipts
 * put their items in HTML tables; dropping the tags glued the cells together ("פריטכמותמחיר").
 * htmlparser2 is the parser sanitize-html uses; scripts, styles and heads are skipped as data never shown.
 * A table that holds another table is layout, not data: its own cells print as paragraphs, in order.
 */
export type MailBlock = { kind: 'text'; text: string } | { kind: 'table'; rows: MailCell[][]; cols: number; header: boolean };

/** A table cell placed on the table's grid: `col` is where it starts once cells spanning from rows above are skipped. */
export interface MailCell {
  text: string;
  col: number;
  colspan: number;
  rowspan: number;
}

const BREAKS = new Set(['br', 'p', 'div', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'hr', 'section', 'article', 'header', 'footer']);
const HIDDEN = new Set(['script', 'style', 'head', 'title', 'template', 'noscript']);
/** A printed receipt never needs more; a hostile mail cannot make the printer draw forever. */
const MAX_ROWS = 500;
const MAX_CELLS = 20;

/** A colspan or rowspan attribute as browsers read it: a positive integer, else 1; rowspan 0 runs to the table's end. */
const span = (v: string | undefined, max: number, zero: number) => {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isNaN(n) || n < 0 ? 1 : n === 0 ? zero : Math.min(n, max);
};

interface RawCell {
  text: string;
  colspan: number;
  rowspan: number;
}

const squeeze = (s: string) => s.replace(/[ \t\f\v\u00a0]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n').trim();

interface OpenTable {
  rows: MailCell[][];
  row: RawCell[] | null;
  cell: string | null;
  /** The open cell's spans. */
  spans: { colspan: number; rowspan: number };
  /** Per grid column, how many more rows a cell from above still covers. */
  covered: number[];
  header: boolean;
  layout: boolean;
}

/** Places a row's cells on the grid, past the columns that cells from rows above still cover. */
function place(t: OpenTable, row: RawCell[]): MailCell[] {
  const out: MailCell[] = [];
  let col = 0;
  for (const c of row) {
    while ((t.covered[col] ?? 0) > 0) col++;
    if (col >= MAX_CELLS) break;
    const colspan = Math.min(c.colspan, MAX_CELLS - col);
    out.push({ text: c.text, col, colspan, rowspan: c.rowspan });
    for (let k = col; k < col + colspan; k++) t.covered[k] = c.rowspan;
    col += colspan;
  }
  t.covered = t.covered.map((n) => Math.max(0, n - 1));
  return out;
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
    const rows = [...t.rows.map((r) => r.map((c) => c.text)), ...(t.row ? [[...t.row.map((c) => c.text), ...(t.cell !== null ? [t.cell] : [])]] : [])];
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
      onopentag(name, attribs) {
        if (HIDDEN.has(name)) hidden++;
        if (hidden) return;
        const t = tables.at(-1);
        if (name === 'table') {
          if (t) {
            t.layout = true;
            spill(t);
          }
          flushText();
          tables.push({ rows: [], row: null, cell: null, spans: { colspan: 1, rowspan: 1 }, covered: [], header: false, layout: false });
        } else if (name === 'tr' && t) {
          t.row = [];
        } else if ((name === 'td' || name === 'th') && t) {
          t.row ??= [];
          t.cell = '';
          t.spans = { colspan: span(attribs.colspan, MAX_CELLS, 1), rowspan: span(attribs.rowspan, MAX_ROWS, MAX_ROWS) };
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
          if (t.row && t.row.length < MAX_CELLS) t.row.push({ text: squeeze(t.cell).replace(/\n/g, ' '), ...t.spans });
          t.cell = null;
        } else if (name === 'tr' && t && t.row) {
          const placed = place(t, t.row);
          if (placed.some((c) => c.text) && t.rows.length < MAX_ROWS) t.rows.push(placed);
          t.row = null;
        } else if (name === 'table' && t) {
          tables.pop();
          const cols = Math.max(0, ...t.rows.flat().map((c) => c.col + c.colspan));
          if (t.layout || cols <= 1) {
            spill(t);
          } else {
            flushText();
            blocks.push({ kind: 'table', rows: t.rows, cols, header: t.header });
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
