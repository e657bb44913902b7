import { readFileSync } from 'node:fs';

/**
 * `npx node bench/profileTop.ts <file.cpuprofile> [rows]`: the functions with the most self time in a V8 CPU profile
 * (what BENCH_PROFILE or --cpu-prof write), as shares of all samples, and the busy share (samples not idle).
 * Names carry their file's last two path segments and line, so entries of ours and of Node's read apart.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: Node[];
  samples: number[];
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: npx node bench/profileTop.ts <file.cpuprofile> [rows]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
for (const id of profile.samples) {
  const f = byId.get(id)!.callFrame;
  const where = f.url ? `${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}` : '';
  const name = `${f.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
  self.set(name, (self.get(name) ?? 0) + 1);
}
const total = profile.samples.length;
const idle = self.get('(idle)') ?? 0;
console.log(`${total} samples; busy ${((100 * (total - idle)) / total).toFixed(1)}%`);
for (const [name, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(rowsArg ?? 25))) console.log(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${name}`);
