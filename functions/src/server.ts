import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config.ts';
import { createApp } from './app.ts';
import { lazyOperations } from './operations/loader.ts';
import { createHttpHandler } from './surfaces/http/handler.ts';
import { nodeListener } from './surfaces/http/node.ts';
import { sweepOutbox } from './core/outboxSweep.ts';
import { sweepExpired } from './core/ttlSweep.ts';
import { jerusalemDay } from './core/clock.ts';
import { recordLocalRun } from './localRun.ts';
import { resolve } from 'node:path';
import { emulatorTokensRefusal, isLoopbackHost } from './core/idToken.ts';
import { buildIsStale, dashboardCsp, loadAssets, SERVICE_PREFIXES, withDashboard } from './surfaces/dashboard/dashboard.ts';
import { EMULATOR_PROJECT, startAuthEmulator, type AuthEmulator } from './localAuthEmulator.ts';

/** `npm start`: the whole service on one machine, on the embedded store, local files and the local queue. */
const config = loadConfig();
/** Background loading waits this long after start-up (see below). */
const WARM_AFTER_MS = 1000;
const app = await createApp(config);
const { logger } = app.services;
const pagesPrefix = new URL(config.publicLinkBase).pathname.replace(/\/+$/, '');

// Dashboard sign-in through the Firebase Auth emulator, whose ID tokens are unsigned: only while this server
// listens on loopback alone (core/idToken.ts refuses them otherwise, whatever the environment says).
let emulator: AuthEmulator | null = null;
let signIn: Record<string, unknown>;
// An emulator of one's own (FIREBASE_AUTH_EMULATOR_HOST) where its unsigned tokens could come from anyone: no start.
const refused = emulatorTokensRefusal(config.host);
if (refused) {
  logger.error(refused);
  await app.close();
  process.exit(1);
}
if (process.env.AUTH_EMULATOR === 'off') {
  signIn = { unavailable: 'AUTH_EMULATOR=off: this server was started without dashboard sign-in.' };
} else if (!isLoopbackHost(config.host)) {
  const why = emulatorTokensRefusal(config.host, { FIREBASE_AUTH_EMULATOR_HOST: 'set' })!;
  logger.warn(why);
  signIn = { unavailable: why };
} else {
  if (!process.env.FIREBASE_AUTH_EMULATOR_HOST) {
    emulator = await startAuthEmulator(Number(process.env.AUTH_EMULATOR_PORT ?? 9099), resolve(config.dataDir), logger);
    if (emulator) process.env.FIREBASE_AUTH_EMULATOR_HOST = emulator.host;
  }
  process.env.GCLOUD_PROJECT ??= EMULATOR_PROJECT;
  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  signIn = host
    ? { apiKey: 'fake-api-key', authDomain: host.split(':')[0], projectId: process.env.GCLOUD_PROJECT, authEmulator: `http://${host}` }
    : { unavailable: 'firebase-tools is not installed, so the Auth emulator cannot run: run npm ci.' };
  // The sign-in page says "starting…" (init.json is read per request) until the emulator answers.
  if (emulator) {
    signIn.authStarting = true;
    emulator.ready.then(
      () => {
        delete signIn.authStarting;
        logger.info('Auth emulator ready', { host: emulator!.host });
      },
      (e) => {
        delete signIn.authStarting;
        signIn.unavailable = `the Auth emulator did not start (its output is above, in the npm start window; is ${emulator!.host} taken?)`;
        logger.error('Auth emulator failed', { error: String(e) });
      },
    );
  }
}

// The dashboard's build, made first when missing or older than its sources; the API answers meanwhile.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dashboardDir = join(ROOT, 'dashboard');
let built: Promise<ReturnType<typeof loadAssets>> | undefined;
const assets = () =>
  (built ??= (async () => {
    if (buildIsStale(dashboardDir)) {
      logger.info('building the dashboard (its build is missing or older than its sources)');
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: dashboardDir, stdio: ['ignore', 'inherit', 'inherit'] });
        child.once('error', () => resolve(-1));
        child.once('exit', resolve);
      });
      if (code !== 0) logger.error('the dashboard build failed; the API still runs', { code });
    }
    return loadAssets(join(dashboardDir, 'dist'));
  })());
const authOrigin = typeof signIn.authEmulator === 'string' ? [signIn.authEmulator] : [];
// Operation modules load as requests name them; the rest load once the server listens (below), so the first request
// waits for its own module only (issue 23: cold start).
const operations = lazyOperations();
const server = createServer(
  withDashboard(nodeListener(createHttpHandler(app, operations), pagesPrefix), {
    assets,
    csp: dashboardCsp(authOrigin, authOrigin),
    firebaseInit: signIn,
    servicePrefixes: [...new Set([...SERVICE_PREFIXES, pagesPrefix].filter(Boolean))],
  }),
);
server.keepAliveTimeout = 65_000;
app.queue?.start();
// Messages staged just before a crash were never enqueued; the sweep finds them.
const sweep = () => sweepOutbox(app.services).catch((e) => app.services.logger.error('outbox sweep failed', { error: String(e) }));
void sweep();
setInterval(sweep, 60_000).unref();
// Firestore's TTL policies have no local engine: expired records (spent OAuth states, old quota
// counters, final outbox records, rate-limit windows, finished tasks) are deleted here, hourly.
// Generated ZIPs past their lifetime are deleted in the same round (index.ts: filesExpire in production).
const expire = () =>
  Promise.all([
    sweepExpired(app.services.store, Date.now()).catch((e) => app.services.logger.error('TTL sweep failed', { error: String(e) })),
    app.services.files.purgeExpired().catch((e) => app.services.logger.error('expired files sweep failed', { error: String(e) })),
    // Bytes a crash left without their record (and ZIPs cut off mid-stream), an hour old at least.
    app.services.files.sweepOrphans().catch((e) => app.services.logger.error('orphan files sweep failed', { error: String(e) })),
  ]);
void expire();
setInterval(expire, 3_600_000).unref();

// Automations (index.ts schedules them in production): the monthly statements run on the 2nd (Israel), checked
// hourly (its run ids derive from the month, so the repeats queue nothing new), and the mailbox polls. Loaded
// after start-up: the module brings the mail import and PDF code, which the first request does not need.
const schedules = () => Promise.all([import('./domain/automations/statementsRun.ts'), import('./domain/automations/mailboxPoll.ts'), import('./domain/automations/automations.ts')]).then(([{ scheduleMonthlyStatements }, { scheduleMailboxPolls }, { POLL_EVERY_MINUTES }]) => {
  const monthly = () => (jerusalemDay(Date.now()).endsWith('-02') ? scheduleMonthlyStatements(app.services) : Promise.resolve(0)).catch((e) => app.services.logger.error('monthly statements schedule failed', { error: String(e) }));
  void monthly();
  setInterval(monthly, 3_600_000).unref();
  const polls = () => scheduleMailboxPolls(app.services).catch((e) => app.services.logger.error('mailbox automation polls failed', { error: String(e) }));
  void polls();
  setInterval(polls, POLL_EVERY_MINUTES * 60_000).unref();
  // Recurring payment requests: hourly (an occurrence's payment id derives from its period, so repeats make nothing new).
  const recurring = () => import('./domain/recurring/recurring.ts').then(({ runRecurring }) => runRecurring(app.services)).catch((e) => app.services.logger.error('recurring requests failed', { error: String(e) }));
  void recurring();
  setInterval(recurring, 3_600_000).unref();
  // Reminders and due notices (issue 39 §2): hourly; each send is keyed, so the repeats send nothing new.
  const reminders = () => import('./domain/reminders/reminders.ts').then(({ runReminders }) => runReminders(app.services)).catch((e) => app.services.logger.error('reminders run failed', { error: String(e) }));
  void reminders();
  setInterval(reminders, 3_600_000).unref();
});

// After start-up, in the background: the dashboard's build (made when stale), every operation module, the schedules.
// Started a moment after listening, so a first request does not share the CPU with them.
setTimeout(() => {
  void assets();
  void operations.all().catch((e) => logger.error('loading the operations failed', { error: String(e) }));
  void schedules();
}, WARM_AFTER_MS).unref();

server.listen(config.port, config.host, () => {
  // HOST is what was asked for; the address bound is what counts (a name may resolve beyond loopback).
  const late = emulatorTokensRefusal((server.address() as AddressInfo).address);
  if (late) {
    logger.error(late);
    emulator?.stop();
    process.exit(1);
  }
  // The admin CLI of this checkout finds this store through the record (localRun.ts).
  const storeEnv: Record<string, string> = { DATA_DIR: resolve(config.dataDir), STORE: config.store };
  for (const k of ['FIRESTORE_EMULATOR_HOST', 'GCLOUD_PROJECT', 'FILES'] as const) if (process.env[k]) storeEnv[k] = process.env[k]!;
  recordLocalRun({ kind: 'server', pid: process.pid, storeEnv, url: `http://${config.host}:${(server.address() as { port: number }).port}` });
  app.services.logger.info('listening', { url: `http://${config.host}:${config.port}`, dashboard: `http://${config.host}:${config.port}/`, api: config.baseUrl, mcp: config.mcpUrl, dataDir: config.dataDir });
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    emulator?.stop();
    server.close();
    // The emulator exports its accounts on the way out (a few seconds at most): the next start imports them.
    const exported = emulator ? Promise.race([emulator.exited, new Promise((r) => setTimeout(r, 10_000))]) : undefined;
    void Promise.all([app.close(), exported]).then(() => process.exit(0));
  });
}
