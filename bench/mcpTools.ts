import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../functions/src/config.ts';
import { createApp } from '../functions/src/app.ts';
import { silentLogger } from '../functions/src/core/logger.ts';
import { registry } from '../functions/src/operations/index.ts';
import { createBusiness } from '../functions/src/domain/business.ts';
import { issueApiKey } from '../functions/src/core/auth.ts';
import { createMcpSurface } from '../functions/src/surfaces/mcp/mcpSurface.ts';

/**
 * The context cost of the MCP tools (issue 18 C8): the characters of a tools/list answer, as a client
 * receives it, for the default connection (core toolset), `?toolsets=all`, and each toolset alone.
 * Characters are what a model's context pays for (about 4 per token).
 */
const FULL_TARGET = 100_000;
const CORE_TARGET_TOOLS = 25;

const dataDir = mkdtempSync(join(tmpdir(), 'bfo-bench-mcp-'));
const app = await createApp(loadConfig({ DATA_DIR: dataDir }), { logger: silentLogger });
const { store, ids, clock } = app.services;
const b = await createBusiness(store, ids, { name: 'Bench', email: 'bench@example.com' }, clock.now());
const { apiKey } = await issueApiKey(store, { businessId: b.businessId, userId: b.userId, name: 'bench' }, clock.now());
const mcp = createMcpSurface(registry, app);

async function toolsList(query: string) {
  const res = await mcp({
    method: 'POST',
    path: '/mcp',
    query,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })),
  });
  const result = JSON.parse(String(res.body)).result as { tools: unknown[] };
  return { tools: result.tools.length, chars: JSON.stringify(result).length };
}

const row = (label: string, r: { tools: number; chars: number }, note = '') =>
  console.log(`${label.padEnd(22)} ${String(r.tools).padStart(4)} tools ${r.chars.toLocaleString('en').padStart(9)} chars ~${Math.round(r.chars / 4).toLocaleString('en').padStart(7)} tokens ${note}`);

const def = await toolsList('');
row('default (core)', def, `(target: at most ${CORE_TARGET_TOOLS} tools) ${def.tools <= CORE_TARGET_TOOLS ? 'ok' : 'OVER'}`);
const all = await toolsList('toolsets=all');
row('?toolsets=all', all, `(target: at most ${FULL_TARGET.toLocaleString('en')} chars; issue 18 measured 269,643) ${all.chars <= FULL_TARGET ? 'ok' : 'OVER'}`);
for (const g of [...new Set([...registry.values()].map((op) => op.group))].sort()) row(`?toolsets=${g}`, await toolsList(`toolsets=${g}`));

await app.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(def.tools <= CORE_TARGET_TOOLS && all.chars <= FULL_TARGET ? 0 : 1);
