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
 * while the server listens on loopback alone. Its accounts are exported into DATA_DIR/auth-emulator when it
 * stops and imported at the next start, so a browser's session outlives a restart.
 */
export const EMULATOR_PROJECT = 'demo-bfo';
const FIREBASE = fileURLToPath(new URL('../../node_modules/firebase-tools/lib/bin/firebase.js', import.meta.url));

export function freePort(): Promise<number> {
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
  /** Resolves once the emulator has exited (after exporting its accounts). */
  exited: Promise<void>;
  stop(): void;
}

/**
 * Loaded into the emulator's process: when the server's end of its stdin closes (the server exited, even by
 * kill -9), it stops as on Ctrl-C, so it exports its accounts and frees its port instead of living on. Its
 * output pipes went with the server: writing there would fail (EPIPE) before the export.
 */
const WATCHDOG = `data:text/javascript,${encodeURIComponent(`process.stdin.on('end', () => {
  for (const out of [process.stdout, process.stderr]) {
    out.on('error', () => {});
    out.write = () => true;
  }
  process.kill(process.pid, 'SIGTERM');
});
process.stdin.resume();`)}`;
const SIGN_IN_LINK = /To sign in as (\S+), follow this link: (http:\/\/(?:127\.0\.0\.1|localhost)[^\s\x1b]*)/g;

export async function startAuthEmulator(
  port: number,
  dataDir: string,
  log: { warn(msg: string): void; info(msg: string, extra: Record<string, unknown>): void },
): Promise<AuthEmulator | null> {
  if (!existsSync(FIREBASE)) {
    log.warn('firebase-tools is not installed: no Auth emulator, so no dashboard sign-in (npm ci installs it)');
    return null;
  }
  const work = mkdtempSync(join(tmpdir(), 'bfo-auth-'));
  const at = async (p?: number) => ({ host: '127.0.0.1', port: p ?? (await freePort()) });
  writeFileSync(join(work, 'firebase.json'), JSON.stringify({ emulators: { auth: await at(port), hub: await at(), logging: await at(), ui: { enabled: false } } }));
  // DATA_DIR is private (privateFs.ts); the export is written beside the store, and read back only when complete.
  const saved = join(dataDir, 'auth-emulator');
  const imported = existsSync(join(saved, 'firebase-export-metadata.json')) ? ['--import', saved] : [];
  let output = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', WATCHDOG, FIREBASE, 'emulators:start', '--only', 'auth', '--project', EMULATOR_PROJECT, ...imported, '--export-on-exit', saved], {
    cwd: work,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, FIREBASE_AUTH_EMULATOR_HOST: '' },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // The export is staged in the work folder: it goes once the emulator has exited.
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  }).then(() => rmSync(work, { recursive: true, force: true }));
  const stop = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    } catch {}
  };
  process.once('exit', stop);
  const ready = new Promise<void>((resolve, reject) => {
    let seen = 0;
    const onData = (c: Buffer) => {
      output += c;
      if (output.includes('All emulators ready')) resolve();
      // The emulator sends no mail: its sign-in links are printed in the npm start window instead (whole lines only).
      const end = output.lastIndexOf('\n') + 1;
      if (end <= seen) return;
      for (const m of output.slice(seen, end).matchAll(SIGN_IN_LINK)) log.info('sign-in link (the Auth emulator sends no mail)', { email: m[1], link: m[2] });
      seen = end;
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the Auth emulator exited (${code}): ${output.slice(-1500)}`)));
  });
  ready.catch(() => {});
  return { host: `127.0.0.1:${port}`, ready, exited, stop };
}
