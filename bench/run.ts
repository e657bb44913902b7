import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run bench`: whoami throughput through the local server against a bare node:http
 * server with a same-size body, measured in the same run, and the cold-start load time
 * of the functions entry module. Prints ratios; asserts nothing.
 */
const DURATION_MS = Number(process.env.BENCH_MS ?? 2000);
const ROUNDS = 5;
const CONCURRENCY = 16;
const dataDir = mkdtempSync(join(tmpdir(), 'bfo-bench-'));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error' };
const children: ChildProcess[] = [];

function start(args: string[], port: number): Promise<void> {
  const child = spawn(process.execPath, args, { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise(async (resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`${args[0]} exited ${code}`)));
    for (let i = 0; i < 200; i++) {
      try {
        await fetch(`http://127.0.0.1:${port}/`);
        return resolve();
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  });
}

function once(port: number, path: string, headers: Record<string, string>, agent: Agent): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '2', ...headers }, agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

async function load(port: number, path: string, headers: Record<string, string>): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const until = Date.now() + DURATION_MS;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const r = await once(port, path, headers, agent);
        if (r.status !== 200) throw new Error(`status ${r.status}`);
        done++;
      }
    }),
  );
  agent.destroy();
  return done / (DURATION_MS / 1000);
}

function coldStartMs(): number {
  const code = "const t = performance.now(); await import('./functions/src/index.ts'); process.stdout.write(String(performance.now() - t));";
  const runs = Array.from({ length: 5 }, () => Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { env }).toString()));
  return runs.sort((a, b) => a - b)[2];
}

try {
  const owner = JSON.parse(execFileSync(process.execPath, ['functions/src/admin.ts', 'create-business', '--name', 'Bench', '--email', 'bench@example.com'], { env }).toString());
  const auth = { authorization: `Bearer ${owner.apiKey}` };
  const apiPort = 18787;
  const barePort = 18788;
  await start(['functions/src/server.ts'], apiPort);
  const agent = new Agent({ keepAlive: true });
  const sample = await once(apiPort, '/v1/whoami', auth, agent);
  agent.destroy();
  await start(['bench/bareServer.ts', String(sample.bytes), String(barePort)], barePort);
  // Warm both up, then alternate short rounds so machine noise hits both alike; report medians.
  await load(apiPort, '/v1/whoami', auth);
  await load(barePort, '/', {});
  const bares: number[] = [];
  const apis: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bares.push(await load(barePort, '/', {}));
    apis.push(await load(apiPort, '/v1/whoami', auth));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ratios = bares.map((b, i) => apis[i] / b);
  const bare = median(bares);
  const api = median(apis);
  const cold = coldStartMs();
  console.log(`whoami body: ${sample.bytes} bytes, ${CONCURRENCY} keep-alive connections, ${ROUNDS} alternating rounds of ${DURATION_MS} ms`);
  console.log(`bare node:http: ${bare.toFixed(0)} req/s (median)`);
  console.log(`whoami via the local server: ${api.toFixed(0)} req/s (median)`);
  console.log(`ratio whoami/bare per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
  console.log(`ratio whoami/bare: ${median(ratios).toFixed(2)} (median; goal >= 0.70)`);
  console.log(`functions entry module load (median of 5): ${cold.toFixed(0)} ms (goal <= 300)`);
} finally {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
