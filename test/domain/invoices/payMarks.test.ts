import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aiPayMark, bulkPayMark, effectivePayMark, paymentPayMark, payMarkInForce } from '../../../functions/src/domain/invoices/payMarks.ts';
import { AI_PAY_METHODS } from '../../../functions/src/domain/invoices/invoices.ts';

test('the AI pay method maps to a mark: card, paypal, transfer, and the rest as paid_other', () => {
  assert.deepEqual(
    AI_PAY_METHODS.map((m) => aiPayMark(m)),
    ['paid_card', 'paid_paypal', 'paid_transfer', 'paid_other', 'paid_other', 'paid_other'],
  );
  assert.equal(aiPayMark(null), null);
});

test('precedence: explicit mark > pay rule > AI method > unpaid', () => {
  assert.equal(effectivePayMark({ paymentMark: null, payMark: 'not_payable', payRule: 'card', aiPayMethod: 'paypal' }), 'not_payable');
  assert.equal(effectivePayMark({ paymentMark: null, payMark: '', payRule: 'card', aiPayMethod: 'paypal' }), 'paid_card');
  assert.equal(effectivePayMark({ paymentMark: null, payMark: '', payRule: '', aiPayMethod: 'paypal' }), 'paid_paypal');
  assert.equal(effectivePayMark({ paymentMark: null, payMark: '', payRule: '', aiPayMethod: null }), 'unpaid');
});

test("a paid payment's method beats the pay rule and the AI; the owner's mark beats it", () => {
  assert.deepEqual(payMarkInForce({ payMark: '', paymentMark: 'paid_transfer', payRule: 'card', aiPayMethod: 'card' }), { mark: 'paid_transfer', by: 'payment' });
  assert.deepEqual(payMarkInForce({ payMark: 'paid_paypal', paymentMark: 'paid_transfer', payRule: '', aiPayMethod: 'card' }), { mark: 'paid_paypal', by: 'hand' });
  assert.deepEqual(payMarkInForce({ payMark: '', paymentMark: null, payRule: '', aiPayMethod: null }), { mark: 'unpaid', by: 'none' });
  assert.equal(paymentPayMark({ status: 'paid', payout: { method: 'bank' } }), 'paid_transfer');
  assert.equal(paymentPayMark({ status: 'paid', payout: { method: 'bit' } }), 'paid_other');
  assert.equal(paymentPayMark({ status: 'paid', payout: null }), null, 'paid with no payout details: the method is not known');
  assert.equal(paymentPayMark({ status: 'ready', payout: { method: 'bank' } }), null, 'not paid yet');
});

test('not_card keeps the AI\'s non-card mark and ignores a card reading', () => {
  assert.equal(effectivePayMark({ paymentMark: null, payMark: '', payRule: 'not_card', aiPayMethod: 'bank_transfer' }), 'paid_transfer');
  assert.equal(effectivePayMark({ paymentMark: null, payMark: '', payRule: 'not_card', aiPayMethod: 'cash' }), 'paid_other');
  assert.equal(effectivePayMark({ paymentMark: null, payMark: '', payRule: 'not_card', aiPayMethod: 'card' }), 'unpaid');
  assert.equal(effectivePayMark({ paymentMark: null, payMark: '', payRule: 'not_card', aiPayMethod: undefined }), 'unpaid');
});

test('bulk marks: card → paid_card; not_card replaces only a card mark', () => {
  assert.equal(bulkPayMark('card', 'paid_transfer', 'bank_transfer'), 'paid_card');
  assert.equal(bulkPayMark('not_card', 'paid_card', 'paypal'), 'paid_paypal');
  assert.equal(bulkPayMark('not_card', 'paid_card', 'card'), 'unpaid');
  assert.equal(bulkPayMark('not_card', 'paid_transfer', 'card'), 'paid_transfer');
  assert.equal(bulkPayMark('not_card', 'not_payable', null), 'not_payable');
});
