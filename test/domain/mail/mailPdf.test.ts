import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mailToPdf, israelTime } from '../../../functions/src/domain/mail/mailPdf.ts';
import { mailBlocks } from '../../../functions/src/domain/mail/mailLayout.ts';

/** pdftotext -layout keeps columns apart with spaces, as a reader sees them. */
function layoutText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'bfo-mailpdf-'));
  try {
    writeFileSync(join(dir, 'm.pdf'), pdf);
    // Without the bidi embedding marks pdftotext puts around right-to-left runs.
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', join(dir, 'm.pdf'), '-']).toString().replace(/[\u202a-\u202e\u2066-\u2069]/g, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A receipt as shops send it: a layout table around a data table, Hebrew headers, styles and a script.
const RECEIPT = `<html><head><style>td{padding:4px}</style></head><body>
<table width="100%"><tr><td>
  <p>שלום דנה, תודה על הקנייה</p>
  <table border="1"><tr><th>פריט</th><th>כמות</th><th>מחיר</th></tr>
    <tr><td>מקלדת</td><td>2</td><td>₪100.00</td></tr>
    <tr><td>Wireless mouse</td><td>1</td><td>₪50.00</td></tr></table>
  <p>סה"כ לתשלום: ₪250.00</p>
</td></tr></table><script>document.write('x')</script></body></html>`;

test('a receipt table is laid out as a table: its cells stay apart, on one line per row', async () => {
  const pdf = await mailToPdf({ from: 'shop@example.com', subject: 'קבלה 1001', date: '2026-10-03T21:30:00.000Z', text: 'fallback', html: RECEIPT });
  const text = layoutText(pdf);
  const lines = text.split('\n');
  const header = lines.find((l) => l.includes('פריט'));
  assert.ok(header, text);
  assert.doesNotMatch(text, /פריטכמות|כמותמחיר|מקלדת2/, 'cells glued together');
  // The three header cells are separate words on one row, and each item row keeps its quantity and price.
  for (const w of ['פריט', 'כמות', 'מחיר']) assert.match(header!, new RegExp(`(^|\\s)${w}(\\s|$)`), header);
  const mouse = lines.find((l) => l.includes('Wireless mouse'));
  assert.ok(mouse && /\s1\s/.test(` ${mouse} `) && mouse.includes('50.00'), mouse);
  assert.match(text, /שלום דנה/);
  assert.doesNotMatch(text, /document\.write|padding/);
});

test('the date is the mail\'s moment in Israel time, not a UTC stamp', async () => {
  // 21:30 UTC on 3 October is 00:30 on 4 October in Israel (summer time, UTC+3).
  assert.equal(israelTime('2026-10-03T21:30:00.000Z'), '04.10.2026 00:30 (Israel)');
  assert.equal(israelTime('2026-12-01T10:00:00.000Z'), '01.12.2026 12:00 (Israel)');
  const text = layoutText(await mailToPdf({ from: 'a@example.com', subject: 's', date: '2026-10-03T21:30:00.000Z', text: 'hello' }));
  assert.match(text, /Date: 04\.10\.2026 00:30 \(Israel\)/);
  assert.doesNotMatch(text, /2026-10-03T21:30/);
});

test('layout tables and one-column tables print as paragraphs, in the order of the mail', () => {
  const blocks = mailBlocks(RECEIPT);
  assert.deepEqual(
    blocks.map((b) => b.kind),
    ['text', 'table', 'text'],
  );
  assert.deepEqual(blocks[1], { kind: 'table', header: true, rows: [['פריט', 'כמות', 'מחיר'], ['מקלדת', '2', '₪100.00'], ['Wireless mouse', '1', '₪50.00']] });
  assert.deepEqual(mailBlocks('<table><tr><td>one</td></tr><tr><td>two</td></tr></table>'), [{ kind: 'text', text: 'one\ntwo' }]);
});
