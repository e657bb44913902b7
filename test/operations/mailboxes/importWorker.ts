/**
 * A server process for mailboxImportResume.test.ts: the app on the data directory argv[2] with the environment
 * argv[3] (JSON), running its local queue until it is killed.
 */
import { loadConfig } from '../../../functions/src/config.ts';
import { createApp } from '../../../functions/src/app.ts';
import { silentLogger } from '../../../functions/src/core/logger.ts';

const app = await createApp(loadConfig({ DATA_DIR: process.argv[2], ...JSON.parse(process.argv[3]) }), { logger: silentLogger });
app.queue!.start();
setInterval(() => undefined, 60_000);
