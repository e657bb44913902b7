import { createServer } from 'node:http';
import { loadConfig } from './config.ts';
import { createApp } from './app.ts';
import { registry } from './operations/index.ts';
import { createHttpHandler } from './surfaces/http/handler.ts';
import { nodeListener } from './surfaces/http/node.ts';
import { sweepOutbox } from './core/outboxSweep.ts';
import { sweepExpired } from './core/ttlSweep.ts';
import { jerusalemDay } from './core/clock.ts';

/** `npm start`: the whole service on one machine, on the embedded store, local files and the local queue. */
const config = loadConfig();
const app = await createApp(config);
const server = createServer(nodeListener(createHttpHandler(app, registry), new URL(config.publicLinkBase).pathname.replace(/\/+$/, '')));
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
  ]);
void expire();
setInterval(expire, 3_600_000).unref();

// Automations (index.ts schedules them in production): the monthly statements run on the 2nd (Israel), checked
// hourly (its run ids derive from the month, so the repeats queue nothing new), and the mailbox polls. Loaded
// after start-up: the module brings the mail import and PDF code, which the first request does not need.
void import('./domain/automations.ts').then(({ POLL_EVERY_MINUTES, scheduleMailboxPolls, scheduleMonthlyStatements }) => {
  const monthly = () => (jerusalemDay(Date.now()).endsWith('-02') ? scheduleMonthlyStatements(app.services) : Promise.resolve(0)).catch((e) => app.services.logger.error('monthly statements schedule failed', { error: String(e) }));
  void monthly();
  setInterval(monthly, 3_600_000).unref();
  const polls = () => scheduleMailboxPolls(app.services).catch((e) => app.services.logger.error('mailbox automation polls failed', { error: String(e) }));
  void polls();
  setInterval(polls, POLL_EVERY_MINUTES * 60_000).unref();
});

server.listen(config.port, config.host, () => {
  app.services.logger.info('listening', { url: `http://${config.host}:${config.port}`, api: config.baseUrl, mcp: config.mcpUrl, dataDir: config.dataDir });
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close();
    void app.close().then(() => process.exit(0));
  });
}
