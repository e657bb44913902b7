import type { AnyOperation } from '../core/defineOperation.ts';
import { loadAll, type Registry } from './loader.ts';

/**
 * The registry: every module `operations/<group>/<operationName>.ts`, sorted by name.
 * Modules are discovered (loader.ts), so adding an operation means adding its file and nothing else.
 * Importing this module loads every operation; a cold start that serves one request uses loader.ts's lazyOperations.
 */
export type { Registry } from './loader.ts';

export const operations: AnyOperation[] = await loadAll();
export const registry: Registry = new Map(operations.map((op) => [op.name, op]));

export function createRegistry(ops: AnyOperation[]): Registry {
  return new Map(ops.map((op) => [op.name, op]));
}
