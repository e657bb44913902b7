import { readdirSync } from 'node:fs';
import type { AnyOperation } from '../core/defineOperation.ts';

export type Registry = ReadonlyMap<string, AnyOperation>;

/**
 * The operation modules as files, `operations/<group>/<operationName>.ts`, and loading them: all of them (the
 * registry of index.ts) or one at a time (`lazyOperations`, for a cold start that should load only what the first
 * request needs). The directory listing is the single source of the names either way.
 */
export interface OperationFile {
  name: string;
  group: string;
  url: string;
}

const ROOT = new URL('./', import.meta.url);

/** Every operation module, by name, listed without loading any. */
export function operationFiles(): Map<string, OperationFile> {
  const out = new Map<string, OperationFile>();
  const groups = readdirSync(ROOT, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  for (const group of groups) {
    for (const file of readdirSync(new URL(`${group}/`, ROOT))) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      const name = file.slice(0, -3);
      out.set(name, { name, group, url: new URL(`${group}/${file}`, ROOT).href });
    }
  }
  return out;
}

/** One module's operation, checked against its file's name and group. */
export async function loadOperation(f: OperationFile): Promise<AnyOperation> {
  const op = ((await import(f.url)) as { default?: AnyOperation }).default;
  if (!op || op.name !== f.name || op.group !== f.group) {
    throw new Error(`operations/${f.group}/${f.name}.ts must export default an operation named ${f.name} in group ${f.group}`);
  }
  return op;
}

/** Every operation, sorted by name. */
export async function loadAll(files = operationFiles()): Promise<AnyOperation[]> {
  const ops = await Promise.all([...files.values()].map(loadOperation));
  return ops.sort((a, b) => a.name.localeCompare(b.name));
}

/** Operations loaded on demand: `get` answers the ones loaded so far, `load` one by name, `all` the whole registry. */
export interface OperationSource {
  get(name: string): AnyOperation | undefined;
  load(name: string): Promise<AnyOperation | undefined>;
  all(): Promise<Registry>;
}

/** A full registry as a source (everything is loaded already). */
export function registrySource(registry: Registry): OperationSource {
  const all = Promise.resolve(registry);
  return { get: (name) => registry.get(name), load: async (name) => registry.get(name), all: () => all };
}

/**
 * Operations loaded one module at a time, as requests name them. An operation module brings its domain code and
 * their libraries (PDF, ZIP, HTML sanitizing, images): loading all 140 costs seconds of CPU on a cold instance, while
 * a request needs one. The catalogue, OpenAPI and MCP load the rest (`all`).
 */
export function lazyOperations(files = operationFiles()): OperationSource {
  const loaded = new Map<string, AnyOperation>();
  const pending = new Map<string, Promise<AnyOperation>>();
  let everything: Promise<Registry> | undefined;
  const load = (name: string): Promise<AnyOperation> | undefined => {
    const f = files.get(name);
    if (!f) return undefined;
    let p = pending.get(name);
    if (!p) {
      p = loadOperation(f).then((op) => (loaded.set(name, op), op));
      p.catch(() => pending.delete(name)); // a failed load is tried again by the next request
      pending.set(name, p);
    }
    return p;
  };
  return {
    get: (name) => loaded.get(name),
    load: async (name) => loaded.get(name) ?? (await load(name)),
    all() {
      everything ??= Promise.all([...files.keys()].map((n) => load(n)!)).then((ops) => new Map(ops.sort((a, b) => a.name.localeCompare(b.name)).map((op) => [op.name, op])));
      everything.catch(() => (everything = undefined));
      return everything;
    },
  };
}
