import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { embedTextFont, drawText, fitText, fitTextBlock, wrapLines, visualOrder, isRtl, textWidth } from '../../functions/src/core/pdfText.ts';

function pdftotext(pdf: Uint8Array, args: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'pdftext-'));
  try {
    writeFileSync(join(dir, 'a.pdf'), pdf);
    // poppler wraps right-to-left lines in bidi embedding marks; the words themselves are what we check
    return execFileSync('pdftotext', [...args, join(dir, 'a.pdf'), '-'], { encoding: 'utf8' }).replace(/[\u202A-\u202E]/g, '');
  } finally { rmSync(dir, { recursive: true, force: true }); }
}

test('visual order: right-to-left runs reversed, Latin and numbers kept, brackets mirrored', () => {
  assert.equal(visualOrder('hello'), 'hello');
  assert.equal(visualOrder('שלום'), 'םולש');
  assert.equal(visualOrder('שלום world'), 'world םולש');
  assert.equal(visualOrder('Company בע"מ Ltd'), 'Company מ"עב Ltd');
  assert.equal(visualOrder('ח.פ. 514512345'), '514512345 .פ.ח');
  assert.equal(visualOrder('(שלום)'), '(םולש)');
  assert.ok(isRtl('שלום world'));
  assert.ok(!isRtl('world שלום'));
});

test('Hebrew and Latin drawn with DejaVu come back from pdftotext in reading order', async () => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await embedTextFont(doc);
  drawText(page, 'שם החברה: אקמה בע"מ', { x: 50, y: 780, size: 14, font, maxWidth: 495 });
  drawText(page, 'Invoice 1001 עבור דנה כהן', { x: 50, y: 750, size: 12, font });
  const size = fitText(page, 'רחוב הרצל 12, תל אביב-יפו, ישראל 6100000', { x: 300, y: 700, width: 120, height: 20, font });
  assert.ok(size < 12 && size >= 4, `shrunk to fit, got ${size}`);
  assert.ok(textWidth('רחוב הרצל 12, תל אביב-יפו, ישראל 6100000', font, size) <= 120);
  const text = pdftotext(await doc.save());
  // poppler may move neutral punctuation at a direction change (': ' here); the words are in order
  assert.match(text, /שם החברה/);
  assert.match(text, /אקמה בע"מ/);
  assert.match(text, /עבור דנה כהן/);
  assert.match(text, /Invoice 1001/);
  assert.match(text, /רחוב הרצל/);
  assert.match(text, /תל אביב-יפו/);
  assert.match(text, /ישראל 6100000/);
  assert.doesNotMatch(text, /םולש|הרבחה/, 'no reversed words');
});

test('right-to-left text is right-aligned in its box; characters the font lacks become "?"', async () => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([400, 200]);
  const font = await embedTextFont(doc, 'bold');
  drawText(page, 'שלום', { x: 0, y: 100, size: 20, font, maxWidth: 400 });
  drawText(page, 'a\u0007b 中', { x: 0, y: 50, size: 20, font });
  const bbox = execFileSync('pdftotext', ['-bbox', '-', '-'], { input: Buffer.from(await doc.save()), encoding: 'utf8' });
  const words = [...bbox.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>([^<]*)<\/word>/g)];
  const shalom = words.find((w) => w[3] === 'םולש'); // -bbox lists glyphs as drawn, left to right
  assert.ok(shalom, bbox);
  assert.ok(Number(shalom[2]) > 390 && Number(shalom[1]) > 300, `right edge at the box's right: ${shalom[1]}-${shalom[2]}`);
  assert.ok(words.some((w) => w[3] === '?'), 'the CJK character is replaced');
});

test('wrapLines breaks between words to the width and cuts a word longer than a line', async () => {
  const doc = await PDFDocument.create();
  const font = await embedTextFont(doc);
  const body = 'שלום דנה,\nהחשבונית מצורפת. Please pay by Friday. ' + 'x'.repeat(200);
  const lines = wrapLines(body, font, 10, 200);
  assert.equal(lines[0], 'שלום דנה,');
  for (const l of lines) assert.ok(textWidth(l, font, 10) <= 200, l);
  assert.equal(lines.join(' ').replace(/\s+/g, ''), body.replace(/\s+/g, ''), 'nothing lost');
  assert.deepEqual(wrapLines('a\n\nb', font, 10, 200), ['a', '', 'b']);
});

test('fitTextBlock wraps into a tall box at a readable size, every line inside the box, in reading order', async () => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([400, 400]);
  const font = await embedTextFont(doc);
  const text = 'הספק מתחייב לספק את השירותים בהתאם להזמנה ולתנאי התשלום המוסכמים, כולל Net 30 ממועד החשבונית.';
  const box = { x: 50, y: 100, width: 200, height: 80 };
  const r = fitTextBlock(page, text, { ...box, font, maxSize: 12 });
  assert.ok(r.lines >= 3 && r.size >= 8, `several lines at a readable size: ${JSON.stringify(r)}`);
  const bbox = execFileSync('pdftotext', ['-bbox', '-', '-'], { input: Buffer.from(await doc.save()), encoding: 'utf8' });
  const words = [...bbox.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">/g)].map((m) => m.slice(1).map(Number));
  assert.ok(words.length > 10);
  const top = 400 - (box.y + box.height);
  for (const [x0, y0, x1, y1] of words) assert.ok(x0 >= box.x - 0.5 && x1 <= box.x + box.width + 0.5 && y0 >= top - 0.5 && y1 <= top + box.height + 0.5, `word inside the box: ${[x0, y0, x1, y1]}`);
  const t = pdftotext(Buffer.from(await doc.save())).replace(/\s+/g, ' ');
  assert.match(t, /הספק מתחייב/);
  assert.match(t, /ממועד החשבונית/);
  // One short line: a single line at the largest size.
  const one = fitTextBlock(page, 'דנה', { x: 0, y: 0, width: 200, height: 20, font, maxSize: 12 });
  assert.deepEqual(one, { size: 12, lines: 1 });
});
