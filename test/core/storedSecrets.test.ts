import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness } from '../harness.ts';
import { startSmtp, mailText } from '../fakes/smtp.ts';
import { openSqliteStore } from '../../functions/src/adapters/sqlite/sqliteStore.ts';
import type { OutboxRecord } from '../../functions/src/core/outbox.ts';

/**
 * Capability tokens must not outlive their redaction in the local store's files (issue 20 item 11): not in the
 * database file, its free pages, or its write-ahead log.
 */

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The raw bytes of every file of the SQLite store (store.sqlite, -wal, -shm), as the disk holds them. */
function storeFiles(dataDir: string): { name: string; bytes: Buffer }[] {
  return readdirSync(dataDir)
    .filter((n) => n.startsWith('store.sqlite'))
    .map((name) => ({ name, bytes: readFileSync(join(dataDir, name)) }));
}

test('an invite token is never written in clear: after delivery and redaction it is in no store file, WAL included', async () => {
  const smtp = await startSmtp();
  const h = await createHarness({ env: { SMTP_URL: smtp.url } });
  cleanups.push(() => smtp.close(), () => h.close());
  await h.call('inviteMember', { email: 'sealed@example.com', role: 'user' });

  // Staged: the stored message holds a placeholder, the link's token is sealed apart.
  const [pending] = (await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/outbox` })).map((d) => d.data as unknown as OutboxRecord);
  assert.equal(pending.status, 'pending');
  assert.match((pending.message as { text: string }).text, /\/invite\/\{\{sealed:0\}\}/);
  assert.match(String(pending.sealedSecrets), /^v1\./);

  await h.app.queue!.drain();
  const [mail] = await smtp.waitFor(1);
  const token = /\/invite\/([A-Za-z0-9_-]{43})/.exec(mailText(mail.raw))?.[1];
  assert.ok(token, 'the email carried the working link');
  assert.doesNotMatch(mailText(mail.raw), /\{\{sealed/, 'the recipient never sees a placeholder');

  const [rec] = (await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/outbox` })).map((d) => d.data as unknown as OutboxRecord);
  assert.equal(rec.status, 'delivered');
  assert.equal(rec.sealedSecrets, undefined, 'the sealed link is dropped once the message is final');
  assert.match((rec.message as { text: string }).text, /\/invite\/\[link removed after delivery\]/);

  const files = storeFiles(h.config.dataDir);
  assert.ok(files.some((f) => f.name === 'store.sqlite-wal'), 'the WAL is there to be searched');
  for (const f of files) {
    assert.equal(f.bytes.indexOf(token), -1, `${f.name} holds the token`);
    assert.equal(f.bytes.indexOf(Buffer.from(token, 'utf16le')), -1, `${f.name} holds the token (UTF-16)`);
  }
});

test('a deleted document leaves no copy in the database file: secure_delete zeroes the freed space', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bfo-secure-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'store.sqlite');
  const marker = 'SECRET-MARKER-' + 'x'.repeat(64);
  const store = openSqliteStore({ file, indexes: { indexes: [] } });
  await store.set('businesses/b1/invites/i1', { note: marker, filler: 'y'.repeat(3000) });
  for (let i = 0; i < 20; i++) await store.set(`businesses/b1/other/d${i}`, { filler: 'z'.repeat(2000) });
  await store.delete('businesses/b1/invites/i1');
  // Closing checkpoints the WAL into the database file and removes it.
  await store.close();
  assert.equal(existsSync(`${file}-wal`), false);
  assert.equal(readFileSync(file).indexOf(marker), -1, 'the deleted content is gone from the file');
});
