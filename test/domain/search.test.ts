import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryWords, searchTokensOf, words } from '../../functions/src/domain/search.ts';

test('words: lower case, split on punctuation, one-letter words dropped', () => {
  assert.deepEqual(words('Acme Supplies Ltd, INV-2024-00123 (March) a'), ['acme', 'supplies', 'ltd', 'inv', '2024', '00123', 'march']);
});

test('words: an address or a dotted word is split and also kept whole; a + only splits', () => {
  assert.deepEqual(words('Billing@Acme.co.il'), ['billing', 'acme', 'co', 'il', 'billing@acme.co.il']);
  assert.deepEqual(words('invoice-00123.pdf'), ['invoice', '00123', 'pdf', '00123.pdf']);
  assert.deepEqual(words('+972-50-1234567'), ['972', '50', '1234567']);
  assert.deepEqual(words('a+bc'), ['bc']);
});

test('words: Hebrew points and Latin accents are stripped, so either spelling finds the other', () => {
  assert.deepEqual(words('שָׁלוֹם בע״מ'), words('שלום בע״מ'));
  assert.deepEqual(words('Café Crème'), ['cafe', 'creme']);
  assert.deepEqual(words('Cafe\u0301'), ['cafe']);
  assert.deepEqual(words('ＡＢＣ ﬁle'), ['abc', 'file']);
});

test('words: ASCII text and the same text beside a Hebrew word give the same words', () => {
  for (const s of ['Invoice MI-123 from Supplier 12 Ltd', 'x@y.co a.b.c', '  --  ', 'A+B+cd@e.f', '\tTAB\nline']) {
    assert.deepEqual([...words(`${s} שלום`)].slice(0, -1), words(s), s);
  }
});

test('searchTokensOf: prefixes of names and numbers, whole words of the rest; queryWords cut to the same length', () => {
  const t = searchTokensOf(['Acme'], ['Monthly statement']);
  assert.deepEqual(t, ['ac', 'acm', 'acme', 'monthly', 'statement']);
  assert.deepEqual(queryWords('STATEMENT acme'), ['statement', 'acme']);
});
