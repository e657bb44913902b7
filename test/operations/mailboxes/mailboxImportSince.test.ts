import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => {
  h = await createHarness();
});
after(() => h.close());

// 1767225600 is 2026-01-01 in unix seconds; as milliseconds it is January 1970, which would read the whole mailbox.
for (const operation of ['mailboxImportStart', 'mailboxImportCount']) {
  test(`${operation} refuses a since in seconds, naming the field and the fix, before touching the mailbox`, async () => {
    const err = await h.call(operation, { accountId: 'no-such-mailbox', since: 1_767_225_600 }).catch((e) => e);
    assert.equal(err.code, 'invalid-argument');
    assert.match(err.message, /^since: 1767225600 is before the year 2000 in milliseconds; send unix milliseconds, not seconds \(e\.g\. 1767225600000/);
    // A moment in milliseconds passes validation and reaches the mailbox lookup.
    const ms = await h.call(operation, { accountId: 'no-such-mailbox', since: 1_767_225_600_000 }).catch((e) => e);
    assert.equal(ms.code, 'not-found');
  });
}
