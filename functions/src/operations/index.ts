import { readdirSync } from 'node:fs';
import type { AnyOperation } from '../core/defineOperation.ts';

/**
 * The registry: every module `operations/<group>/<operationName>.ts`, sorted by name.
 * Modules are discovered, so adding an operation means adding its file and nothing else.
 */
async function discover(): Promise<AnyOperation[]> {
  const root = new URL('./', import.meta.url);
  const ops: AnyOperation[] = [];
  const groups = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const modules = groups.flatMap((group) =>
    readdirSync(new URL(`${group}/`, root))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((file) => ({ group, file })),
  );
  await Promise.all(
    modules.map(async ({ group, file }) => {
      const mod = (await import(new URL(`${group}/${file}`, root).href)) as { default?: AnyOperation };
      const op = mod.default;
      const expected = file.slice(0, -3);
      if (!op || op.name !== expected || op.group !== group) {
        throw new Error(`operations/${group}/${file} must export default an operation named ${expected} in group ${group}`);
      }
      ops.push(op);
    }),
  );
  return ops.sort((a, b) => a.name.localeCompare(b.name));
}

export type Registry = ReadonlyMap<string, AnyOperation>;

export const operations: AnyOperation[] = await discover();
export const registry: Registry = new Map(operations.map((op) => [op.name, op]));

export function createRegistry(ops: AnyOperation[]): Registry {
  return new Map(ops.map((op) => [op.name, op]));
}
