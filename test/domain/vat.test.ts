import { test } from 'node:test';
import assert from 'node:assert/strict';
import { amountWords, defaultNoVat, paymentAmounts, typedAmountMeaning } from '../../functions/src/domain/vat.ts';

test('the figure is what the business pays, VAT included; noVat has no VAT at all', () => {
  assert.deepEqual(paymentAmounts({ amountAgorot: 345_000, vatIncluded: false }), { mode: 'added', totalAgorot: 407_100, vatAgorot: 62_100, netAgorot: 345_000 });
  assert.deepEqual(paymentAmounts({ amountAgorot: 11_800, vatIncluded: true }), { mode: 'included', totalAgorot: 11_800, vatAgorot: 1_800, netAgorot: 10_000 });
  assert.deepEqual(paymentAmounts({ amountAgorot: 59_000, vatIncluded: false, noVat: true }), { mode: 'none', totalAgorot: 59_000, vatAgorot: 0, netAgorot: 59_000 });
  // Rounded to the agora, and the parts always add up.
  for (const a of [1, 99, 12_345, 333_333]) {
    for (const vatIncluded of [true, false]) {
      const r = paymentAmounts({ amountAgorot: a, vatIncluded });
      assert.equal(r.netAgorot + r.vatAgorot, r.totalAgorot);
      assert.ok(Number.isInteger(r.vatAgorot));
    }
  }
});

test('page and emails share the words: a VAT line, or none when no VAT applies', () => {
  assert.deepEqual(amountWords({ amountAgorot: 345_000, currency: 'ILS', vatIncluded: false }, 'he'), { figure: '₪4,071.00', vatLine: 'כולל מע"מ ₪621.00 (₪3,450.00 לפני מע"מ)' });
  assert.deepEqual(amountWords({ amountAgorot: 59_000, currency: 'USD', vatIncluded: false, noVat: true }, 'en'), { figure: '$590.00', vatLine: null });
  assert.equal(typedAmountMeaning({ vatIncluded: false }, 'en'), 'before VAT (VAT is added)');
  assert.equal(typedAmountMeaning({ vatIncluded: false, noVat: true }, 'he'), 'ללא מע"מ');
});

test('noVat defaults: USD and EUR, and an exempt dealer (patur) on the supplier card', () => {
  assert.equal(defaultNoVat('USD', undefined), true);
  assert.equal(defaultNoVat('EUR', ''), true);
  assert.equal(defaultNoVat('ILS', undefined), false);
  assert.equal(defaultNoVat('ILS', 'murshe'), false);
  assert.equal(defaultNoVat('ILS', 'patur'), true);
});
