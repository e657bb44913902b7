import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What a running local service (`npm start`, or `npm run emulators`) leaves behind so that the admin CLI
 * opens the same store: without it, a CLI started in another shell without the server's DATA_DIR would
 * write to a store nobody serves, and the key it printed would answer "invalid API key".
 * One file per checkout (in the project's root, or in BFO_RUN_DIR), removed when the process ends.
 */
export interface LocalRun {
  kind: 'server' | 'emulators';
  pid: number;
  /** The environment that selects the store: DATA_DIR, and for the emulators STORE, FIRESTORE_EMULATOR_HOST, … */
  storeEnv: Record<string, string>;
  /** Where the API answers, for the CLI's message. */
  url: string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const runFile = (env: NodeJS.ProcessEnv = process.env) => join(env.BFO_RUN_DIR || ROOT, '.bfo-run.json');

export function recordLocalRun(run: LocalRun, env: NodeJS.ProcessEnv = process.env): () => void {
  const file = runFile(env);
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(run, null, 2) + '\n');
  let done = false;
  const remove = () => {
    if (done) return;
    done = true;
    try {
      // Only our own record: another process may have started since and written its own.
      if ((JSON.parse(readFileSync(file, 'utf8')) as LocalRun).pid === run.pid) rmSync(file);
    } catch {
      /* already gone */
    }
  };
  process.once('exit', remove);
  return remove;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The running local service of this checkout, if any (a record left by a killed process is ignored). */
export function findLocalRun(env: NodeJS.ProcessEnv = process.env): LocalRun | null {
  try {
    const run = JSON.parse(readFileSync(runFile(env), 'utf8')) as LocalRun;
    return alive(run.pid) ? run : null;
  } catch {
    return null;
  }
}
