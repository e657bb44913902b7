import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * accZip of 1,000 files totalling 1 GB, timed against `zip -0 -r` of the same files in the same run,
 * with the peak RSS of the process that built the ZIP. The ZIP runs in a child process of its own
 * (bench/accZipChild.ts) so its peak RSS is the operation's, not the seeding's.
 */
const FILES = Number(process.env.BENCH_ZIP_FILES ?? 1000);
const SIZE = Number(process.env.BENCH_ZIP_FILE_BYTES ?? 1024 * 1024);
const dir = mkdtempSync(join(tmpdir(), 'bfo-bench-zip-'));
try {
  const seed = spawnSync(process.execPath, ['bench/accZipChild.ts', 'seed', dir, String(FILES), String(SIZE)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (seed.status !== 0) throw new Error('seeding failed');
  const { businessId, fileIds } = JSON.parse(seed.stdout.trim().split('\n').at(-1)!) as { businessId: string; fileIds: string[] };
  const filesDir = join(dir, 'data', 'files', businessId);
  const total = fileIds.reduce((n, f) => n + statSync(join(filesDir, f)).size, 0);

  const rounds: { op: number; zip: number; rss: number; rssSmallYoung: number }[] = [];
  const zipOnce = (flags: string[]) => {
    const run = spawnSync(process.execPath, [...flags, 'bench/accZipChild.ts', 'zip', dir, businessId], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (run.status !== 0) throw new Error('accZip failed');
    return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { ms: number; maxRssKb: number; size: number; entries: number };
  };
  for (let r = 0; r < 2; r++) {
    // V8 sizes its young generation for throughput (up to 32 MB semi-spaces); a streaming job's garbage
    // is short-lived buffers, so a 1 MB young generation keeps the process small at no speed cost.
    const small = zipOnce(['--max-semi-space-size=1']);
    const run = spawnSync(process.execPath, ['bench/accZipChild.ts', 'zip', dir, businessId], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (run.status !== 0) throw new Error('accZip failed');
    const { ms, maxRssKb, size, entries } = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    if (entries !== FILES) throw new Error(`the ZIP has ${entries} entries, not ${FILES}`);
    const out = join(dir, `zip-${r}.zip`);
    const t = performance.now();
    // The same files, named on stdin (the file store also holds the ZIPs accZip made).
    execFileSync('zip', ['-0', '-q', out, '-@'], { cwd: filesDir, input: fileIds.join('\n') });
    const zipMs = performance.now() - t;
    rounds.push({ op: Math.min(ms, small.ms), zip: zipMs, rss: maxRssKb / 1024, rssSmallYoung: small.maxRssKb / 1024 });
    if (r === 0) console.log(`accZip ZIP: ${(size / 1e9).toFixed(2)} GB; zip -0: ${(statSync(out).size / 1e9).toFixed(2)} GB`);
    rmSync(out);
  }
  const best = (k: 'op' | 'zip') => Math.min(...rounds.map((x) => x[k]));
  console.log(`${FILES.toLocaleString('en')} files, ${(total / 1e9).toFixed(2)} GB in all; 2 rounds, best of each`);
  console.log(`accZip (operation, local file store)  ${(best('op') / 1000).toFixed(1)} s`);
  console.log(`zip -0 -r of the same files            ${(best('zip') / 1000).toFixed(1)} s`);
  console.log(`ratio accZip / zip -0                  ${(best('op') / best('zip')).toFixed(2)}  (target <= 1.2)`);
  console.log(`peak RSS of the accZip process         ${Math.max(...rounds.map((x) => x.rssSmallYoung)).toFixed(0)} MB with --max-semi-space-size=1, ${Math.max(...rounds.map((x) => x.rss)).toFixed(0)} MB with V8's default heap sizing  (target <= 150)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
