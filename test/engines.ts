import { after } from 'node:test';

/**
 * The engines a test runs its body on: SQLite always, and Firestore (the production engine) where an emulator is
 * given (CI's .ci/run passes TEST_FIRESTORE_EMULATOR_HOST). A test takes `await engine.env()` into its harness's env.
 *
 * Each Firestore harness gets an emulator project of its own: the local queue's `_tasks` and the collection-group
 * queries (the outbox sweep) then see only that harness's data, as each SQLite harness sees only its own file, not
 * an earlier case's or another test process's on the same emulator. The projects are emptied when the file ends.
 */
export interface Engine {
  name: 'SQLite' | 'Firestore';
  /** node:test's skip option: a reason when this engine cannot run here. */
  skip: false | string;
  /** The harness env for a fresh store on this engine. */
  env(): Promise<Record<string, string>>;
}

export const emulator = process.env.FIRESTORE_EMULATOR_HOST || process.env.TEST_FIRESTORE_EMULATOR_HOST;
const projects: string[] = [];
const savedProject = process.env.GCLOUD_PROJECT;

/**
 * Closes the firebase app the last Firestore harness opened (app.ts opens the default app once per process) and gives
 * GCLOUD_PROJECT back, so a later test of the file that opens one (ID tokens) gets its own project.
 */
export async function releaseFirestore(): Promise<void> {
  const { getApps, deleteApp } = await import('firebase-admin/app');
  await Promise.all(getApps().map((a) => deleteApp(a)));
  if (savedProject === undefined) delete process.env.GCLOUD_PROJECT;
  else process.env.GCLOUD_PROJECT = savedProject;
}

async function firestoreEnv(): Promise<Record<string, string>> {
  process.env.FIRESTORE_EMULATOR_HOST = emulator;
  await releaseFirestore();
  const project = `demo-bfo-${process.pid}-${projects.length + 1}`;
  projects.push(project);
  process.env.GCLOUD_PROJECT = project;
  return { STORE: 'firestore', FILES: 'local', CREDENTIALS_KEY: 'engines-firestore-test-key' };
}

export const engines: Engine[] = [
  { name: 'SQLite', skip: false, env: async () => ({}) },
  { name: 'Firestore', skip: emulator ? false : 'no Firestore emulator (TEST_FIRESTORE_EMULATOR_HOST is not set)', env: firestoreEnv },
];

after(async () => {
  for (const p of projects) await fetch(`http://${emulator}/emulator/v1/projects/${p}/databases/(default)/documents`, { method: 'DELETE' }).catch(() => undefined);
});
