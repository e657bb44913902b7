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
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../functions/src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every relative import of a file, resolved to a path under functions/src ('' for packages). */
function importsOf(file: string, opts: { dynamic: boolean }): { spec: string; target: string }[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, opts.dynamic);
  return info.importedFiles.map((f) => ({ spec: f.fileName, target: f.fileName.startsWith('.') ? relative(SRC, resolve(dirname(file), f.fileName)).split(sep).join('/') : '' }));
}

const rel = (file: string) => relative(SRC, file).split(sep).join('/');

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
  assert.ok(graph.size > 200, `read ${graph.size} files`);
  assert.deepEqual(circles, []);
});
