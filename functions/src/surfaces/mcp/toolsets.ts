import type { ListToolsResult, Tool } from '@modelcontextprotocol/server';
import type { AnyOperation } from '../../core/defineOperation.ts';
import type { DocStore } from '../../ports/store.ts';
import type { Caller } from '../../core/context.ts';
import { sha256 } from '../../core/ids.ts';
import { iso } from '../../core/clock.ts';
import { notatedOutput, shareOutputSchemas, shortText, toolInputSchema, toolOutputSchema } from './toolSchemas.ts';
import type { Schema } from '../openapi/jsonSchema.ts';
import { TAG_DESCRIPTIONS } from '../openapi/openapi.ts';

/**
 * Toolsets (docs/decisions.md, "MCP clients and toolsets"): `/mcp` serves the core toolset plus
 * enableToolsets, which adds groups for this API key; `?toolsets=<groups>` pins groups;
 * `?toolsets=all` serves every tool.
 */

/** What an assistant needs first: who it is, payments, invoices (their search included), suppliers. */
export const CORE_TOOLS = [
  'whoami',
  'getBusiness',
  'createUploadUrl',
  'createPayment',
  'paymentsList',
  'paymentGet',
  'markPaid',
  'resendPayment',
  'cancelPayment',
  'listIncomingPayments',
  'uploadInvoiceDoc',
  'invoicesList',
  'invoiceGet',
  'updateInvoiceDoc',
  'analyzeInvoice',
  'suppliersList',
  'createSupplier',
  'listActivity',
];
/** Served in every toolset: the instructions send the model to whoami first, and files go up through createUploadUrl. */
export const ALWAYS_SERVED = ['whoami', 'createUploadUrl'];
export const ENABLE_TOOLSETS = 'enableToolsets';
/** Enabled toolsets last this long after the last enableToolsets of a key. */
export const ENABLED_TOOLSETS_TTL_MS = 24 * 3_600_000;

export interface ToolEntry {
  op: AnyOperation;
  tool: Tool;
  /** The op declares an object output, so the result also goes out as structuredContent. */
  structured: boolean;
}

/** One tools/list answer and the tools it lets a caller call. */
export interface McpTools {
  list: ListToolsResult;
  byName: ReadonlyMap<string, ToolEntry>;
}

/** The summary and what a client must tell the human; the full description is in the OpenAPI. */
function descriptionOf(op: AnyOperation): string {
  // A summary may end with a full stop; the notes below add their own.
  let text = op.summary.replace(/\.$/, '');
  if (op.flags.adminOnly && !/admin/i.test(text)) text += ' (admin only)';
  // A destructive tool says so in destructiveHint, which clients act on (they ask before calling it).
  return text;
}

/** Whether an output's JSON Schema is an object, or a union of objects (uploadInvoiceDoc's). */
function isObjectSchema(s: Record<string, unknown>): boolean {
  if (s.type === 'object') return true;
  const branches = (s.anyOf ?? s.oneOf) as Record<string, unknown>[] | undefined;
  return Boolean(branches?.length && branches.every(isObjectSchema));
}

/**
 * All four hints, always: the MCP spec's defaults for omitted ones are destructive and open-world
 * (ToolAnnotations), and clients differ in how they fill them in. A read destroys nothing and repeats safely.
 */
export function hintsOf(op: AnyOperation): NonNullable<Tool['annotations']> {
  const readOnly = Boolean(op.flags.readOnly);
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && Boolean(op.flags.dangerous),
    idempotentHint: readOnly || Boolean(op.flags.idempotent),
    openWorldHint: Boolean(op.flags.openWorld),
  };
}

export function toolOf(op: AnyOperation): ToolEntry {
  const output = toolOutputSchema(op);
  const structured = isObjectSchema(output);
  return {
    op,
    structured,
    tool: {
      // No title: clients show the name instead, and 133 titles cost 4,000 characters of context.
      name: op.name,
      description: descriptionOf(op),
      inputSchema: toolInputSchema(op) as Tool['inputSchema'],
      // Object results also travel as structuredContent, described by the operation's own output schema.
      ...(structured ? { outputSchema: { ...output, type: 'object' } as Tool['outputSchema'] } : {}),
      annotations: hintsOf(op),
    },
  };
}

/** A tool list of these entries, its output schemas shared within it and written in notation (toolSchemas.ts shareOutputSchemas, notatedOutput). */
export function toolsOf(entries: ToolEntry[]): McpTools {
  const shared = shareOutputSchemas(entries.map((e) => ({ name: e.op.name, readOnly: Boolean(e.op.flags.readOnly), outputSchema: e.tool.outputSchema as Schema | undefined })));
  const tools = entries.map((e) => (e.tool.outputSchema ? { ...e.tool, outputSchema: notatedOutput(shared.get(e.op.name)!) as Tool['outputSchema'] } : e.tool));
  return { list: { tools }, byName: new Map(entries.map((e) => [e.op.name, e])) };
}

/** The enableToolsets tool: the groups it offers, each with what it is about and how many tools it adds. */
export function enableToolsetsTool(groups: ReadonlyMap<string, number>): Tool {
  const names = [...groups.keys()].sort();
  const catalogue = names.map((g) => `${g} (${groups.get(g)}): ${shortText(TAG_DESCRIPTIONS[g] ?? g, 70)}`).join('; ');
  return {
    name: ENABLE_TOOLSETS,
    description: `Adds groups of tools to this connection (the list changes; tools/list again if your client does not). Groups: ${catalogue}.`,
    inputSchema: {
      type: 'object',
      properties: {
        toolsets: { type: 'array', items: { type: 'string', enum: names }, description: 'Groups to add' },
        reset: { type: 'boolean', default: false, description: 'true drops the groups enabled before (back to the core tools)' },
      },
      required: ['toolsets'],
    },
    outputSchema: {
      type: 'object',
      properties: { enabled: { type: 'array', items: { type: 'string' } }, added: { type: 'array', items: { type: 'string' } }, toolCount: { type: 'integer' } },
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

/** Where a caller's enabled toolsets are kept: per API key (a signed-in user without a key: per user and business). */
const statePath = (caller: Caller) => `mcpToolsets/${sha256(caller.keyId ?? `${caller.userId}|${caller.businessId}`).slice(0, 40)}`;

export async function readEnabled(store: DocStore, caller: Caller, now: number): Promise<string[]> {
  const doc = await store.get(statePath(caller));
  if (!doc || Number(doc.data.expireAtMs ?? 0) <= now) return [];
  return Array.isArray(doc.data.toolsets) ? (doc.data.toolsets as unknown[]).filter((g): g is string => typeof g === 'string') : [];
}

export async function writeEnabled(store: DocStore, caller: Caller, toolsets: string[], now: number): Promise<void> {
  const expireAtMs = now + ENABLED_TOOLSETS_TTL_MS;
  await store.set(statePath(caller), { toolsets, updatedAt: iso(now), expireAt: iso(expireAtMs), expireAtMs });
}
