/**
 * The recurring job in a process of its own, for recurringKill.test.ts: the app on the data directory argv[2] with
 * the environment argv[3] (JSON) and a clock stopped at argv[4] (Unix ms). At the stage argv[5] of the first
 * occurrence ('before' its transaction, or 'committed' after it, before its message is queued) it prints
 * `STALL <paymentId>` and waits there to be killed (only for the schedule argv[6] when given).
 */
import { loadConfig } from '../../../functions/src/config.ts';
import { createApp } from '../../../functions/src/app.ts';
import { silentLogger } from '../../../functions/src/core/logger.ts';
import { runRecurring } from '../../../functions/src/domain/recurring/recurring.ts';

const [dataDir, envJson, nowMs, stallAt, scheduleId] = process.argv.slice(2);
const now = Number(nowMs);
const app = await createApp(loadConfig({ DATA_DIR: dataDir, ...JSON.parse(envJson) }), { logger: silentLogger, clock: { now: () => now } });
await runRecurring(app.services, {
  async hook(stage, info) {
    if (stage !== stallAt || (scheduleId && info.scheduleId !== scheduleId)) return;
    process.stdout.write(`STALL ${info.paymentId}\n`);
    await new Promise(() => setInterval(() => undefined, 60_000));
  },
});
process.stdout.write('DONE\n');
await app.close();
