import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lazyOperations, operationFiles } from '../../functions/src/operations/loader.ts';

/**
 * Issue 23 (cold start): a fresh process serving one request loads that request's operation module, not the other
 * 139 with their PDF, ZIP, image and HTML libraries; the catalogue and MCP still see every operation.
 */
test('a cold handler answers whoami without loading other operations, the PDF, ZIP, image and HTML libraries, or TLS', () => {
  const code = `
    import { registerHooks } from 'node:module';
    import { mkdtempSync, rmSync } from 'node:fs';
    import { tmpdir } from 'node:os';
    import { join } from 'node:path';
    const loaded = [];
    registerHooks({ load(url, ctx, next) { loaded.push(url); return next(url, ctx); } });
    const src = new URL('./functions/src/', 'file://' + process.cwd() + '/').href;
    const [{ loadConfig }, { createApp }, { silentLogger }, { createBusiness }, { issueApiKey }, { lazyOperations }, { createHttpHandler }] = await Promise.all(
      ['config.ts', 'app.ts', 'core/logger.ts', 'domain/business.ts', 'core/auth.ts', 'operations/loader.ts', 'surfaces/http/handler.ts'].map((f) => import(src + f)));
    const dataDir = mkdtempSync(join(tmpdir(), 'bfo-lazy-'));
    const app = await createApp(loadConfig({ DATA_DIR: dataDir }), { logger: silentLogger });
    const { store, ids, clock } = app.services;
    const b = await createBusiness(store, ids, { name: 'Lazy Ltd', email: 'lazy@example.com' }, clock.now());
    const { apiKey } = await issueApiKey(store, { businessId: b.businessId, userId: b.userId, name: 'k' }, clock.now());
    const http = createHttpHandler(app, lazyOperations());
    const res = await http({ method: 'POST', path: '/v1/whoami', query: '', headers: { authorization: 'Bearer ' + apiKey }, body: Buffer.from('{}') });
    const ops = loaded.filter((u) => u.includes('/functions/src/operations/') && !u.endsWith('/loader.ts'));
    const libs = ['pdf-lib', 'archiver', 'jszip', 'sharp', 'sanitize-html', '@pdf-lib/fontkit'].filter((l) => loaded.some((u) => u.includes('/node_modules/' + l + '/')));
    // node:https (TLS) is about 9 MB of a process that never calls a provider (the accZip bench's peak).
    const tls = loaded.filter((u) => u === 'node:https' || u === 'node:tls');
    const catalogue = JSON.parse((await http({ method: 'GET', path: '/v1', query: '', headers: {}, body: undefined })).body).result;
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.stdout.write(JSON.stringify({ status: res.status, body: JSON.parse(res.body), ops, libs, tls, catalogue: catalogue.operations?.length ?? catalogue.length }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: new URL('../../', import.meta.url), env: { ...process.env, LOG_LEVEL: 'error' } }).toString());
  assert.equal(out.status, 200);
  assert.equal(out.body.result.businessName, 'Lazy Ltd');
  assert.deepEqual(out.ops.map((u: string) => u.replace(/.*\/operations\//, '')), ['account/whoami.ts']);
  assert.deepEqual(out.libs, []);
  assert.deepEqual(out.tls, []);
  assert.equal(out.catalogue, operationFiles().size, 'the catalogue lists every operation once asked for');
});

test('lazyOperations: unknown names answer undefined; get knows only what was loaded; all() is the whole registry', async () => {
  const ops = lazyOperations();
  assert.equal(await ops.load('noSuchOperation'), undefined);
  assert.equal(await ops.load('../index'), undefined);
  assert.equal(ops.get('listActivity'), undefined);
  const op = await ops.load('listActivity');
  assert.equal(op?.name, 'listActivity');
  assert.equal(ops.get('listActivity'), op);
  const all = await ops.all();
  assert.equal(all.size, operationFiles().size);
  assert.ok(all.size > 100);
  assert.equal(all.get('listActivity'), op, 'one module, one operation object');
  assert.deepEqual([...all.keys()], [...all.keys()].sort((a, b) => a.localeCompare(b)));
});
