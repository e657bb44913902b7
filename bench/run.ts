import { spawnSync } from 'node:child_process';

/**
 * `npm run bench`: every benchmark, one after the other, each in a process of its own so one's
 * memory and warm caches never flatter the next. Each prints its numbers with its targets beside them.
 * Filter with `npm run bench -- <name> ...`.
 */
const SUITES: { name: string; file: string; what: string }[] = [
  { name: 'http', file: 'bench/http.ts', what: 'request overhead (whoami vs bare node:http, autocannon) and cold start' },
  { name: 'invoices', file: 'bench/invoicesList.ts', what: 'invoicesList reads per page, index entries per write, latency' },
  { name: 'zip', file: 'bench/accZip.ts', what: 'accZip of 1,000 files (1 GB) against zip -0, and its peak RSS' },
  { name: 'mcp', file: 'bench/mcpTools.ts', what: 'characters of the MCP tools/list: the default (core), ?toolsets=all and each toolset' },
  { name: 'dashboard', file: 'bench/dashboard.ts', what: 'the dashboard in chromium: first-load JS (gzip), first-screen API calls, time to the payments list with 50 rows' },
  { name: 'mail', file: 'bench/mailImport.ts', what: 'mailbox import of 1,000 mails (50 ms AI each): one at a time against the default parallelism (median of 3 runs)' },
];

const only = process.argv.slice(2);
let failed = 0;
for (const s of SUITES.filter((s) => !only.length || only.includes(s.name))) {
  console.log(`\n=== ${s.name}: ${s.what}`);
  const r = spawnSync(process.execPath, [s.file], { stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    failed++;
    console.log(`(${s.name} exited with ${r.status ?? r.signal})`);
  }
}
process.exit(failed ? 1 : 0);
