import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFunctions, ENTRY, OUTFILE, type Built } from '../../scripts/build-functions.ts';

/**
 * Issue 23 (cold start): Cloud Functions loads functions/package.json `main`, the esbuild bundle of functions/src/index.ts
 * (scripts/build-functions.ts). It must declare what the source entry declares, as the Firebase CLI's discovery reads it,
 * and load nothing of ours: the app stays in functions/src, loaded on the first request or task.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FUNCTIONS = join(ROOT, 'functions');
const SDK = join(ROOT, 'node_modules/firebase-functions/lib');
// Emulated, the entry declares no secrets (index.ts): run as a deploy does.
const { FUNCTIONS_EMULATOR: _emulated, ...env } = process.env;

let built: Built;
before(async () => {
  built = await buildFunctions(); // rewrites the bundle only when index.ts or what it imports changed
});

test('functions/package.json main is the bundle, and the bundle leaves our lazily imported modules to functions/src', () => {
  const pkg = JSON.parse(readFileSync(join(FUNCTIONS, 'package.json'), 'utf8')) as { main: string };
  assert.equal(join(FUNCTIONS, pkg.main), OUTFILE);
  const dynamic = [...readFileSync(ENTRY, 'utf8').matchAll(/import\('(\.[^']+)'\)/g)].map((m) => `../src/${m[1].slice(2)}`);
  assert.ok(dynamic.includes('../src/app.ts') && dynamic.includes('../src/config.ts'), `index.ts imports: ${dynamic}`);
  assert.deepEqual([...built.lazy].sort(), [...new Set(dynamic)].sort());
  const app = built.ownBundled.filter((f) => /^functions\/src\/(app|config)\.ts$|\/(operations|surfaces|adapters|domain)\//.test(f));
  assert.deepEqual(app, [], 'none of the app is bundled');
});

test('the built entry loads as one file: no TypeScript, none of our modules', () => {
  const code = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, ctx, next) { if (url.startsWith('file:')) loaded.push(url); return next(url, ctx); } });
    const entry = await import(${JSON.stringify(pathToFileURL(OUTFILE).href)});
    process.stdout.write(JSON.stringify({ loaded, exports: Object.keys(entry).filter((k) => entry[k]?.__endpoint).sort() }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { env }).toString()) as { loaded: string[]; exports: string[] };
  assert.deepEqual(out.loaded, [pathToFileURL(OUTFILE).href]);
  for (const name of ['api', 'outboxDeliver', 'mailboxImportBatch', 'outboxSweep', 'automationsMonthly']) assert.ok(out.exports.includes(name), name);
});

test('the Firebase CLI discovers the same functions and secrets in the bundle as in functions/src/index.ts', () => {
  // As the CLI does on deploy: the SDK's firebase-functions binary, in the functions directory, writes the manifest.
  const dir = mkdtempSync(join(tmpdir(), 'bfo-manifest-'));
  try {
    const path = join(dir, 'manifest.json');
    execFileSync(process.execPath, [join(SDK, 'bin/firebase-functions.js')], { cwd: FUNCTIONS, env: { ...env, FUNCTIONS_MANIFEST_OUTPUT_PATH: path } });
    const deployed = JSON.parse(readFileSync(path, 'utf8'));
    // The same loader on the TypeScript source, in a process of its own (the declared params are process-wide).
    const code = `const { loadStack } = require(${JSON.stringify(join(SDK, 'runtime/loader.js'))});
      const { stackToWire } = require(${JSON.stringify(join(SDK, 'runtime/manifest.js'))});
      loadStack(${JSON.stringify(ENTRY)}).then((s) => process.stdout.write(JSON.stringify(stackToWire(s))));`;
    const source = JSON.parse(execFileSync(process.execPath, ['-e', code], { cwd: FUNCTIONS, env }).toString());
    assert.deepEqual(deployed, source);
    assert.deepEqual(
      deployed.params.filter((p: { type: string }) => p.type === 'secret').map((p: { name: string }) => p.name).sort(),
      ['CHAT_CLIENT_SECRET', 'CREDENTIALS_KEY', 'GEMINI_API_KEY', 'ITA_CLIENT_SECRET', 'MAILBOX_CLIENT_SECRET', 'MARKET_CLIENT_SECRET', 'SMTP_URL', 'WHATSAPP_TOKEN'],
    );
    assert.deepEqual(deployed.endpoints.api.secretEnvironmentVariables.map((s: { key: string }) => s.key).sort(), ['CHAT_CLIENT_SECRET', 'CREDENTIALS_KEY', 'GEMINI_API_KEY', 'ITA_CLIENT_SECRET', 'MAILBOX_CLIENT_SECRET', 'MARKET_CLIENT_SECRET']);
    assert.ok(deployed.endpoints.outboxDeliver.taskQueueTrigger, 'outboxDeliver is a task queue');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
