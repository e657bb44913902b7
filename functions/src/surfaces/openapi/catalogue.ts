import type { Registry } from '../../operations/index.ts';

export interface CatalogueEntry {
  name: string;
  group: string;
  summary: string;
  flags: { readOnly: boolean; dangerous: boolean; adminOnly: boolean };
  methods: ('POST' | 'GET')[];
}

/** `GET {base}`: every operation with its group, flags and summary. */
export function buildCatalogue(registry: Registry, baseUrl: string) {
  const operations: CatalogueEntry[] = [...registry.values()].map((op) => ({
    name: op.name,
    group: op.group,
    summary: op.summary,
    flags: { readOnly: Boolean(op.flags.readOnly), dangerous: Boolean(op.flags.dangerous), adminOnly: Boolean(op.flags.adminOnly) },
    methods: op.flags.readOnly ? ['POST', 'GET'] : ['POST'],
  }));
  return { version: 1, baseUrl, openapi: `${baseUrl}/openapi.json`, count: operations.length, operations };
}
