import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { createApp } from './app.ts';
import { createBusiness } from './domain/business.ts';
import { acceptInvite, findMemberByEmail } from './domain/people/team.ts';
import { issueApiKey, revokeApiKey } from './core/auth.ts';
import { ApiError } from './core/errors.ts';
import { appendActivity } from './core/activity.ts';

/**
 * Local admin commands; each prints exactly one JSON line on stdout. They open the same
 * DATA_DIR as a running server (SQLite WAL lets both work at once).
 */
const USAGE = `usage: npm run --silent admin -- <command> [options]
  create-business --name <name> --email <owner email>
  create-key --business <id> --email <member email> --name <key name>
  accept-invite --invite <inviteId> --email <email>
  revoke-key --key <apiKey>`;

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: { name: { type: 'string' }, email: { type: 'string' }, business: { type: 'string' }, invite: { type: 'string' }, key: { type: 'string' } },
  strict: true,
});

const need = (flag: keyof typeof values): string => {
  const v = values[flag];
  if (!v) throw new ApiError('invalid-argument', `--${flag} is required`);
  return v;
};

const app = await createApp(loadConfig());
const { store, ids, clock } = app.services;
try {
  let out: unknown;
  switch (command) {
    case 'create-business': {
      const b = await createBusiness(store, ids, { name: need('name'), email: need('email') }, clock.now());
      const { apiKey } = await issueApiKey(store, { businessId: b.businessId, userId: b.userId, name: 'admin-cli' }, clock.now());
      out = { businessId: b.businessId, userId: b.userId, apiKey };
      break;
    }
    case 'create-key': {
      const businessId = need('business');
      const member = await findMemberByEmail(store, businessId, need('email').toLowerCase());
      if (!member) throw new ApiError('not-found', `no member ${values.email} in business ${businessId}`);
      const { apiKey, record } = await issueApiKey(store, { businessId, userId: member.id, name: need('name') }, clock.now());
      out = { apiKey, name: record.name, businessId, userId: member.id, createdAt: record.createdAt };
      break;
    }
    case 'accept-invite': {
      const member = await acceptInvite(store, ids, need('invite'), need('email'), clock.now());
      await appendActivity(store, ids, { ...member, keyName: 'admin-cli' }, clock.now(), { operation: 'acceptInvite', targetIds: [values.invite!], summary: `${member.email} joined as ${member.role}` });
      out = member;
      break;
    }
    case 'revoke-key': {
      const record = await revokeApiKey(store, need('key'), clock.now());
      out = { revoked: true, name: record.name, businessId: record.businessId, userId: record.userId, revokedAt: record.revokedAt };
      break;
    }
    default:
      process.stderr.write(USAGE + '\n');
      process.exitCode = 2;
  }
  if (out !== undefined) process.stdout.write(JSON.stringify(out) + '\n');
} catch (e) {
  const error = e instanceof ApiError ? { code: e.code, message: e.message } : { code: 'internal', message: String(e) };
  process.stderr.write(JSON.stringify({ ok: false, error }) + '\n');
  process.exitCode = 1;
} finally {
  await app.close();
}
