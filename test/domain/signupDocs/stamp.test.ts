import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { initialsOf, signaturePng, stampPng } from '../../../functions/src/domain/signupDocs/stamp.ts';

async function ink(png: Buffer) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const points: [number, number][] = [];
  for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 128 && data[i + 2] > 100) points.push([(i / 4) % info.width, Math.floor(i / 4 / info.width)]);
  return { points, width: info.width, height: info.height };
}

test('a typeset signature draws every part of a mixed name: Hebrew, Latin, digits, and letters neither handwriting subset has', async () => {
  const plain = await ink(await signaturePng('דנה כהן'));
  assert.ok(plain.points.length > 500);
  const mixed = await ink(await signaturePng('דנה כהן-Lévy Ж 2'));
  assert.ok(mixed.width > plain.width + 100, 'the extra characters take room');
  // Ink across the whole width: no character was skipped.
  const cols = new Set(mixed.points.map(([x]) => Math.floor(x / 40)));
  assert.ok(cols.size >= Math.floor((mixed.width - 40) / 40) - 2, `ink in ${cols.size} of ${Math.ceil(mixed.width / 40)} columns`);
});

test('the stamp keeps a long business name inside its inner ring', async () => {
  const { points, width } = await ink(await stampPng('מפעלי הגליל העליון לייצור ושיווק מוצרי מזון בע"מ', '514512345'));
  const c = width / 2;
  const text = points.filter(([x, y]) => Math.hypot(x - c, y - c) < c - 40);
  assert.ok(text.length > 1000, 'the name and number are drawn');
  for (const [x, y] of text) assert.ok(Math.abs(y - c) < c - 60 && Math.abs(x - c) < c - 45, `ink at ${x},${y} stays well inside`);
});

test('initials', () => {
  assert.equal(initialsOf('דנה כהן'), 'ד.כ.');
  assert.equal(initialsOf(' dana  cohen '), 'D.C.');
});
