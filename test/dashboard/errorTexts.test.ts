import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_REASONS, NOUNS, REASON_NAMES } from '../../functions/src/core/errorReasons.ts';
import { errorNounsHe, errorsHe } from '../../dashboard/src/i18n/errors.he.ts';
import { errorNounsEn, errorsEn } from '../../dashboard/src/i18n/errors.en.ts';
import { reasonText } from '../../dashboard/src/ui/reasonText.ts';

/** Issue 35 item 6: the dashboard words every reason of the API's catalogue in Hebrew and in English. */
for (const [lang, texts] of [
  ['Hebrew', errorsHe],
  ['English', errorsEn],
] as const) {
  test(`every error reason of the catalogue has ${lang} text, and no text is for a reason the API does not have`, () => {
    const missing = REASON_NAMES.filter((r) => !(texts as Record<string, string>)[r]?.trim());
    assert.deepEqual(missing, [], `reasons without ${lang} text`);
    assert.deepEqual(Object.keys(texts).filter((r) => !(r in ERROR_REASONS)), [], 'texts for unknown reasons');
    for (const r of REASON_NAMES) {
      const text = texts[r];
      if (lang === 'Hebrew') assert.match(text, /[\u0590-\u05FF]/, `${r}: the Hebrew text has Hebrew letters`);
      const named = [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const params: readonly string[] = ERROR_REASONS[r].params;
      for (const p of named) assert.ok(params.includes(p), `${r}: ${lang} names {${p}}, which the reason does not carry`);
    }
  });
}

test('a reason is filled with its params, each isolated so a left-to-right value keeps its order inside Hebrew', () => {
  const he = reasonText({ field: 'bankCode', reason: 'bankCodeDigits', params: { value: '123', digits: 2 } }, 'he');
  assert.equal(he, '\u2068123\u2069 אינו תקין: צריך \u20682\u2069 ספרות');
  const en = reasonText({ field: 'supplierPhone', reason: 'invalidPhone', params: { value: '+1 555' } }, 'en');
  assert.equal(en, '\u2068+1 555\u2069 is not a valid phone number');
});

test('every noun a not-found reason names is worded in Hebrew and in English, never shown as its code', () => {
  for (const [nouns, lang] of [
    [errorNounsHe, 'he'],
    [errorNounsEn, 'en'],
  ] as const) {
    assert.deepEqual(NOUNS.filter((n) => !nouns[n]?.trim()), [], `nouns without ${lang} text`);
    assert.deepEqual(Object.keys(nouns).filter((n) => !(NOUNS as readonly string[]).includes(n)), [], 'words for unknown nouns');
  }
  assert.equal(reasonText({ reason: 'notFoundWhat', params: { what: 'invoice' } }, 'he'), 'לא מצאנו את החשבונית');
  assert.equal(reasonText({ reason: 'notFoundWhat', params: { what: 'rule' } }, 'en'), 'The folder rule was not found');
});

test('the Hebrew texts never print an API field name (they are English identifiers): the field is placed, not named', () => {
  for (const r of REASON_NAMES) assert.doesNotMatch(errorsHe[r], /\{(other|fields)\}/, r);
  assert.equal(reasonText({ field: 'docId', reason: 'sendOneOf', params: { fields: ['docId', 'paymentId'] } }, 'he'), 'צריך למלא אחד מהשדות');
});
