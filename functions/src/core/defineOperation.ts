import type { ActivityParams } from './activity.ts';
import type { z } from 'zod';
import type { Ctx } from './context.ts';

export interface OperationFlags {
  /** R in the spec: no writes; also served as GET. */
  readOnly?: boolean;
  /** D in the spec: destructive; MCP clients ask the human first. */
  dangerous?: boolean;
  adminOnly?: boolean;
  /** Repeating the call with the same input changes nothing more (MCP idempotentHint). Read-only implies it. */
  idempotent?: boolean;
  /** The call reaches a third-party provider (MCP openWorldHint). */
  openWorld?: boolean;
}

export interface ActivityNote {
  targetIds: string[];
  /** English, for API scripts and old rows; the dashboard renders `params` in the chosen language. */
  summary: string;
  params?: ActivityParams;
}

export interface Operation<I extends z.ZodObject = z.ZodObject, O = unknown> {
  name: string;
  group: string;
  /** One short line (under 80 characters): the OpenAPI summary and the start of the MCP description. */
  summary: string;
  /** The rest: behaviour, limits, what to call next. OpenAPI `description`; appended for MCP. */
  description?: string;
  flags: OperationFlags;
  input: I;
  output: z.ZodType<O>;
  run(input: z.output<I>, ctx: Ctx): Promise<O>;
  /** The activity row of a mutating operation: the ids it touched and a short summary. */
  activity?(input: z.output<I>, result: O): ActivityNote;
}

export function defineOperation<I extends z.ZodObject, O>(op: Operation<I, O>): Operation<I, O> {
  return op;
}

export type AnyOperation = Operation<z.ZodObject, any>;
