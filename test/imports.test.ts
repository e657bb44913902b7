import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The layering rules, read from the source's own imports (TypeScript's pre-processor: static, type-only,
 * re-exports and dynamic import()): domain/ never reaches a provider except through a port, ports/ sit at
 * the floor, and no two files import each other in a circle.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'functions/src');
const DASHBOARD = join(ROOT, 'dashboard/src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** Every relative import of a file, resolved to a path under `base` ('' for packages). */
function importsOf(file: string, opts: { dynamic: boolean }, base = SRC): { spec: string; target: string }[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, opts.dynamic);
  return info.importedFiles.map((f) => ({ spec: f.fileName, target: f.fileName.startsWith('.') ? relative(base, resolve(dirname(file), f.fileName)).split(sep).join('/') : '' }));
}

const rel = (file: string, base = SRC) => relative(base, file).split(sep).join('/');

/** Each circle in an import graph, as "a → b → a". */
function circlesOf(graph: Map<string, string[]>): string[] {
  // Depth-first search; a grey node met again closes a circle.
  const state = new Map<string, 'grey' | 'black'>();
  const circles: string[] = [];
  const visit = (n: string, path: string[]) => {
    state.set(n, 'grey');
    for (const m of graph.get(n) ?? []) {
      if (!graph.has(m)) continue;
      if (state.get(m) === 'grey') circles.push([...path.slice(path.indexOf(m)), m].join(' → '));
      else if (!state.has(m)) visit(m, [...path, m]);
    }
    state.set(n, 'black');
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n, [n]);
  return circles;
}

test('no file under domain/ imports from adapters/ (providers are reached through ports/)', () => {
  const files = tsFiles(join(SRC, 'domain'));
  const bad: string[] = [];
  let seen = 0;
  for (const f of files) {
    for (const i of importsOf(f, { dynamic: true })) {
      seen++;
      if (i.target.startsWith('adapters/')) bad.push(`${rel(f)} imports ${i.spec}`);
    }
  }
  assert.ok(files.length > 40 && seen > 200, `read ${files.length} files and ${seen} imports: the reader found too little`);
  assert.deepEqual(bad, []);
});

test('ports/ import nothing of the project but other ports (the floor of the layers)', () => {
  const bad: string[] = [];
  for (const f of tsFiles(join(SRC, 'ports'))) {
    for (const i of importsOf(f, { dynamic: true })) if (i.spec.startsWith('.') && !i.target.startsWith('ports/')) bad.push(`${rel(f)} imports ${i.spec}`);
  }
  assert.deepEqual(bad, []);
});

test('no import circles among the source files (static imports, type-only ones included)', () => {
  const graph = new Map<string, string[]>();
  for (const f of tsFiles(SRC)) graph.set(rel(f), importsOf(f, { dynamic: false }).map((i) => i.target).filter(Boolean));
  assert.ok(graph.size > 200, `read ${graph.size} files`);
  assert.deepEqual(circlesOf(graph), []);
});

test('the dashboard has no import circles either, lazy import() included (Root.tsx once met SignIn.tsx so)', () => {
  const graph = new Map<string, string[]>();
  for (const f of tsFiles(DASHBOARD)) graph.set(rel(f, DASHBOARD), importsOf(f, { dynamic: true }, DASHBOARD).map((i) => i.target).filter(Boolean));
  assert.ok(graph.size > 40 && graph.get('App.tsx')!.length > 25, `read ${graph.size} files`);
  assert.deepEqual(circlesOf(graph), []);
});

test("the dashboard's screens are grouped as the operations are: each folder under routes/ is a group of operations/", () => {
  const groups = new Set(readdirSync(join(SRC, 'operations'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name));
  const entries = readdirSync(join(DASHBOARD, 'routes'), { withFileTypes: true });
  const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  const loose = entries.filter((e) => e.isFile()).map((e) => e.name);
  assert.ok(folders.length >= 10, folders.join());
  assert.deepEqual(folders.filter((f) => !groups.has(f)), []);
  // Only the screens that belong to no group stay at the top.
  assert.deepEqual(loose, ['NotFound.tsx']);
});
