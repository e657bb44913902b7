import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { registry } from '../../../functions/src/operations/index.ts';
import { buildOpenApi } from '../../../functions/src/surfaces/openapi/openapi.ts';
import { loadConfig } from '../../../functions/src/config.ts';

const REDOCLY = fileURLToPath(new URL('../../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

test('the OpenAPI document passes `redocly lint --extends=recommended` with no error and no warning', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bfo-redocly-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(buildOpenApi(registry, loadConfig({}))));
    const { stdout } = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', '--extends=recommended', '--format=json', file], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 32 * 1024 * 1024,
    }).catch((e: { stdout?: string; message: string }) => ({ stdout: e.stdout ?? e.message }));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message}`);
    assert.deepEqual({ errors: report.totals.errors, warnings: report.totals.warnings, problems: problems.slice(0, 20) }, { errors: 0, warnings: 0, problems: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('servers are listed once each, 405 is documented, apps has its eight named properties, every tag is described', () => {
  const doc = buildOpenApi(registry, loadConfig({})) as any;
  const urls = doc.servers.map((s: any) => s.url);
  assert.deepEqual(urls, [...new Set(urls)]);
  assert.ok(doc.paths['/whoami'].post.responses['405']);
  const apps = doc.paths['/getBusiness'].post.responses['200'].content['application/json'].schema.properties.result.properties.apps;
  assert.deepEqual(Object.keys(apps.properties).sort(), ['accountant', 'documents', 'employees', 'incoming', 'invoices', 'payments', 'software', 'statements']);
  for (const tag of doc.tags) assert.ok(tag.description && !tag.description.startsWith('Operations of the'), `tag ${tag.name} has a real description`);
});
