import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startAuthEmulator, type AuthEmulator } from '../functions/src/localAuthEmulator.ts';

/**
 * `npm test` runs this once, before the files: one Firebase Auth emulator for all the dashboard's browser
 * tests (each server gets a project of its own on it: test/dashboard/env.ts). Its boot overlaps the first
 * files instead of delaying each browser file by as much. The files inherit the address.
 */
let emulator: AuthEmulator | null = null;
let dir = '';

export async function globalSetup() {
  if (process.env.TEST_AUTH_EMULATOR_HOST) return;
  dir = mkdtempSync(join(tmpdir(), 'bfo-test-auth-'));
  emulator = await startAuthEmulator(await freePort(), dir, { warn() {}, info() {} });
  // Not awaited: a file that needs it waits for it to answer.
  if (emulator) process.env.TEST_AUTH_EMULATOR_HOST = emulator.host;
}

export async function globalTeardown() {
  emulator?.stop();
  await emulator?.exited;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
