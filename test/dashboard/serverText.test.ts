import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { he } from '../../dashboard/src/i18n/he.ts';
import { en } from '../../dashboard/src/i18n/en.ts';
import { payoutText, serverText, serverTextKind } from '../../dashboard/src/ui/serverText.ts';

const source = (p: string) => readFileSync(new URL(`../../functions/src/${p}`, import.meta.url), 'utf8');

/** The lines the server writes, in the forms its code writes them (checked below against that code). */
const WRITTEN: [string, string][] = [
  ['whatsapp channel is not configured', 'notConfigured'],
  ['email channel is not configured', 'notConfigured'],
  ['refused by the SMTP server: 550 5.1.1 no such user', 'mailRefused'],
  ['rejected by the SMTP server: dana@example.com', 'mailRefused'],
  ['WhatsApp Cloud API refused (400): Recipient phone number not in allowed list', 'whatsappRefused'],
  ['Stripe refused the request (HTTP 400): No such account', 'providerRefused'],
  ['connect ECONNREFUSED 127.0.0.1:2525', 'unreachable'],
  ['Connection timeout', 'timeout'],
];

test("the server's delivery and provider lines are said in Hebrew by their kind, never in the server's English", () => {
  for (const [line, kind] of WRITTEN) {
    assert.equal(serverTextKind(line).kind, kind, line);
    const hebrew = serverText(line, he, 'he');
    assert.match(hebrew, /[\u05d0-\u05ea]/, `${line} → ${hebrew}`);
    assert.doesNotMatch(hebrew, /refused|rejected|channel|configured|SMTP|request/i, `${line} → ${hebrew}`);
    // English keeps the server's own, more precise, words.
    assert.equal(serverText(line, en, 'en'), line);
  }
  assert.equal(serverText('whatsapp channel is not configured', he, 'he'), 'ערוץ WhatsApp לא מוגדר בשרת, ולכן לא נשלח דבר');
  assert.equal(serverText('something nobody planned', he, 'he'), he.serverText.other);
});

test('the forms above are the ones the server code writes (a changed wording fails here first)', () => {
  assert.match(source('core/outbox.ts'), /`\$\{record\.channel\} channel is not configured`/);
  assert.match(source('adapters/smtp/smtpSender.ts'), /refused by the SMTP server: /);
  assert.match(source('adapters/smtp/smtpSender.ts'), /rejected by the SMTP server: /);
  assert.match(source('adapters/whatsapp/whatsappSender.ts'), /WhatsApp Cloud API refused \(/);
  assert.match(source('adapters/fxwallet/fxwallet.ts'), /Wise refused the request for .* \(HTTP /);
  assert.match(source('adapters/cardproc/cardproc.ts'), /Stripe refused the request: /);
  assert.match(source('domain/payments/payments.ts'), /`bit \$\{tail\(p\.bitPhone\)\}`/);
  assert.match(source('domain/payments/payments.ts'), /`bank \$\{p\.bankCode/);
});

test('a masked payout names its method in the chosen language', () => {
  // The numbers stay one left-to-right island after the Hebrew word.
  assert.equal(payoutText('bank 12-345 ••••901', he), 'בנק \u206612-345 ••••901\u2069');
  assert.equal(payoutText('bit ••••567', he), 'ביט \u2066••••567\u2069');
  assert.equal(payoutText('bit ••••567', en), 'Bit \u2066••••567\u2069');
  assert.equal(payoutText('SWIFT DEUTDEFF ••••130', he), 'SWIFT DEUTDEFF ••••130');
});
