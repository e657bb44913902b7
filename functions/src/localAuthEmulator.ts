import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm start` signs the dashboard in through the Firebase Auth emulator (firebase-tools, offline): started
 * here as a child in its own process group, on AUTH_EMULATOR_PORT (9099), with a throwaway project folder
 * so it never collides with `npm run emulators`. Its ID tokens are unsigned, so the caller starts it only
 * while the server listens on loopback alone.
 */
export const EMULATOR_PROJECT = 'demo-bfo';
const FIREBASE = fileURLToPath(new URL('../../node_modules/firebase-tools/lib/bin/firebase.js', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface AuthEmulator {
  host: string;
  /** Resolves when the emulator answers (rejects with its output when it could not start). */
  ready: Promise<void>;
  stop(): void;
}

export async function startAuthEmulator(port: number, log: (msg: string, extra?: Record<string, unknown>) => void): Promise<AuthEmulator | null> {
  if (!existsSync(FIREBASE)) {
    log('firebase-tools is not installed: no Auth emulator, so no dashboard sign-in (npm ci installs it)');
    return null;
  }
  const work = mkdtempSync(join(tmpdir(), 'bfo-auth-'));
  const at = async (p?: number) => ({ host: '127.0.0.1', port: p ?? (await freePort()) });
  writeFileSync(join(work, 'firebase.json'), JSON.stringify({ emulators: { auth: await at(port), hub: await at(), logging: await at(), ui: { enabled: false } } }));
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [FIREBASE, 'emulators:start', '--only', 'auth', '--project', EMULATOR_PROJECT], {
    cwd: work,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, FIREBASE_AUTH_EMULATOR_HOST: '' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    } catch {}
    rmSync(work, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      output += c;
      if (output.includes('All emulators ready')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the Auth emulator exited (${code}): ${output.slice(-1500)}`)));
  });
  ready.catch(() => {});
  return { host: `127.0.0.1:${port}`, ready, stop };
}
