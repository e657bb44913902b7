import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { createApp } from './app.ts';
import { createBusiness } from './domain/business.ts';
import { acceptInvite, findMemberByEmail } from './domain/people/team.ts';
import { issueApiKey, revokeApiKey } from './core/auth.ts';
import { ApiError } from './core/errors.ts';
import { appendActivity } from './core/activity.ts';
import { findLocalRun, runFile } from './localRun.ts';
import { resolve } from 'node:path';
import type { Config } from './config.ts';

/**
 * Local admin commands; each prints exactly one JSON line on stdout, and on stderr which store it used.
 * They open the store of the running `npm start` or `npm run emulators` of this checkout (localRun.ts)
 * unless DATA_DIR or STORE is given (SQLite WAL lets the server and the CLI work at once).
 */
const USAGE = `usage: npm run --silent admin -- <command> [options]
  create-business --name <name> --email <owner email>
  create-key --business <id> --email <member email> --name <key name>
  accept-invite --invite <inviteId> --email <email>
  revoke-key --key <apiKey>
  run-job <outbox-sweep | statements-monthly | mailbox-polls | recurring | reminders>   what the scheduled functions do, once`;

const JOBS = ['outbox-sweep', 'statements-monthly', 'mailbox-polls', 'recurring', 'reminders'] as const;

const [command, ...rest] = process.argv.slice(2);
const { values, positionals } = parseArgs({
  args: rest,
  options: { name: { type: 'string' }, email: { type: 'string' }, business: { type: 'string' }, invite: { type: 'string' }, key: { type: 'string' } },
  strict: true,
  allowPositionals: true,
});

// Which store: the one named in the environment, else the running service's, else the default folder (said so).
// DATA_DIR alone names the running service's store when it is that service's DATA_DIR: `npm run emulators` keeps its
// files there but its records in the Firestore emulator, so the CLI must take the rest of its settings too.
const local = findLocalRun();
const sameDataDir = Boolean(local?.storeEnv.DATA_DIR && process.env.DATA_DIR && resolve(process.env.DATA_DIR) === resolve(local.storeEnv.DATA_DIR));
const chosen = Boolean(process.env.STORE || process.env.FIRESTORE_EMULATOR_HOST || (process.env.DATA_DIR && !sameDataDir));
const running = chosen ? null : local;
if (running) Object.assign(process.env, running.storeEnv);
const describeStore = (c: Config) =>
  c.store === 'sqlite'
    ? `the SQLite store in ${c.dataDir}`
    : `Firestore ${process.env.FIRESTORE_EMULATOR_HOST ? `emulator at ${process.env.FIRESTORE_EMULATOR_HOST}` : 'in Google Cloud'} (project ${process.env.GCLOUD_PROJECT || 'from the environment'})`;
const storeNote = (c: Config) =>
  running
    ? `admin: used ${describeStore(c)}, the store of the running ${running.kind === 'server' ? 'npm start' : 'npm run emulators'} (pid ${running.pid}, ${running.url})`
    : chosen
      ? `admin: used ${describeStore(c)}, as the environment says${local ? `; the running ${local.kind === 'server' ? 'npm start' : 'npm run emulators'} (pid ${local.pid}, ${local.url}) may use another store: ${runFile()} has its settings` : ''}`
      : `admin: no running npm start or npm run emulators of this checkout found; used ${describeStore(c)}. A server started with another DATA_DIR will not see this: set DATA_DIR to the server's.`;

const need = (flag: keyof typeof values): string => {
  const v = values[flag];
  if (!v) throw new ApiError('invalid-argument', `--${flag} is required`);
  return v;
};

const config = loadConfig();
const app = await createApp(config);
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
      await appendActivity(store, ids, { ...member, keyName: 'admin-cli' }, clock.now(), { operation: 'acceptInvite', kind: 'team', params: { email: member.email, role: member.role }, targetIds: [values.invite!], summary: `${member.email} joined as ${member.role}` });
      out = member;
      break;
    }
    case 'revoke-key': {
      const record = await revokeApiKey(store, need('key'), clock.now());
      out = { revoked: true, name: record.name, businessId: record.businessId, userId: record.userId, revokedAt: record.revokedAt };
      break;
    }
    case 'run-job': {
      // The scheduled functions have no trigger under the emulators (no Pub/Sub emulator): this runs their work once.
      const job = positionals[0] as (typeof JOBS)[number];
      if (!JOBS.includes(job)) throw new ApiError('invalid-argument', `run-job: expected one of ${JOBS.join(', ')}`);
      if (job === 'outbox-sweep') {
        const { sweepOutbox } = await import('./core/outboxSweep.ts');
        out = { job, requeued: await sweepOutbox(app.services) };
      } else if (job === 'statements-monthly') {
        const { scheduleMonthlyStatements } = await import('./domain/automations/statementsRun.ts');
        out = { job, businesses: await scheduleMonthlyStatements(app.services) };
      } else if (job === 'recurring') {
        const { runRecurring } = await import('./domain/recurring/recurring.ts');
        const r = await runRecurring(app.services);
        out = { job, created: r.created, paused: r.paused };
      } else if (job === 'reminders') {
        const { runReminders } = await import('./domain/reminders/reminders.ts');
        out = { job, ...(await runReminders(app.services)) };
      } else {
        const { scheduleMailboxPolls } = await import('./domain/automations/mailboxPoll.ts');
        out = { job, automations: await scheduleMailboxPolls(app.services) };
      }
      break;
    }
    default:
      process.stderr.write(USAGE + '\n');
      process.exitCode = 2;
  }
  if (out !== undefined) {
    process.stdout.write(JSON.stringify(out) + '\n');
    process.stderr.write(storeNote(config) + '\n');
  }
} catch (e) {
  const error = e instanceof ApiError ? { code: e.code, message: e.message } : { code: 'internal', message: String(e) };
  process.stderr.write(JSON.stringify({ ok: false, error }) + '\n');
  process.exitCode = 1;
} finally {
  await app.close();
}
