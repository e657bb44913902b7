import { defineOperation } from '../../core/defineOperation.ts';
import { headerCredential, input } from '../../core/schema.ts';
import { invalid } from '../../core/errors.ts';
import { connectOutput, connectSource } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'cardprocConnect',
  group: 'statements',
  summary: 'Connect the card processor (Stripe) with a restricted key',
  description:
    'Takes a Stripe restricted key (rk_…) with read access to Reporting (report runs, report types) and Files; a secret key (sk_…) is refused: ' +
    'least privilege. The key is checked with Stripe, then stored sealed. Returns the account and the closed months (up to 24 back) with report data.',
  flags: { openWorld: true },
  input: input({ apiKey: headerCredential(500).describe('Stripe restricted key, rk_live_… or rk_test_…; stored sealed, never shown again.') }),
  output: connectOutput,
  async run({ apiKey }, ctx) {
    if (/^sk_/.test(apiKey)) throw invalid('apiKey', 'a secret key (sk_…) gives full access; create a restricted key (rk_…) with read access to Reporting and Files (least privilege)', { reason: 'secretKeyRefused' });
    if (!/^rk_(live|test)_[A-Za-z0-9]+$/.test(apiKey)) throw invalid('apiKey', 'must be a Stripe restricted key (rk_live_… or rk_test_…)', { reason: 'restrictedKeyFormat' });
    return connectSource(ctx, 'cardproc', { apiKey });
  },
  activity: () => ({ targetIds: [], summary: 'connected the card processor' }),
});
