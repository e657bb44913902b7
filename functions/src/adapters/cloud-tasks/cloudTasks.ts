import { firebaseAppOptions } from '../../core/firebaseApp.ts';
import { createHash } from 'node:crypto';
import type { Functions } from 'firebase-admin/functions';
import type { TaskQueue } from '../../ports/tasks.ts';
import { TASK_TIMEOUT_S } from '../../core/queueLimits.ts';

const VALID_ID = /[^A-Za-z0-9_-]/g;

/**
 * Cloud Tasks ids allow only [A-Za-z0-9_-], at most 500 characters. A hash of the caller's id leads,
 * so ids spread over Cloud Tasks' key space (a shared prefix such as `businesses_` slows dispatch)
 * and two ids that differ only in replaced characters stay distinct.
 */
export function cloudTaskId(id: string): string {
  const hash = createHash('sha256').update(id).digest('base64url').slice(0, 16);
  return `${hash}-${id.replace(VALID_ID, '_')}`.slice(0, 500);
}

function alreadyExists(e: unknown): boolean {
  const err = e as { code?: unknown; httpResponse?: { status?: number } };
  return (typeof err?.code === 'string' && err.code.endsWith('already-exists')) || err?.httpResponse?.status === 409;
}

/**
 * Enqueues onto the Firebase task-queue functions through firebase-admin (loaded on first use).
 * Queue names are function names; they live in FUNCTIONS_REGION like the functions themselves.
 * In the emulator, firebase-admin sends to the Cloud Tasks emulator (CLOUD_TASKS_EMULATOR_HOST).
 */
export function cloudTasks(region = process.env.FUNCTIONS_REGION || 'us-central1'): TaskQueue {
  let functions: Promise<Functions> | undefined;
  const getFunctionsClient = () => {
    functions ??= (async () => {
      const [{ getApps, initializeApp }, { getFunctions }] = await Promise.all([import('firebase-admin/app'), import('firebase-admin/functions')]);
      if (!getApps().length) initializeApp(firebaseAppOptions());
      return getFunctions();
    })();
    functions.catch(() => (functions = undefined));
    return functions;
  };
  return {
    // A dispatch whose instance died ends at the function's timeout; Cloud Tasks then retries after its backoff (10 s first).
    redeliveryMs: (TASK_TIMEOUT_S + 10) * 1000,
    async enqueue(queue, payload, opts = {}) {
      const client = await getFunctionsClient();
      const target = client.taskQueue(`locations/${region}/functions/${queue}`);
      try {
        await target.enqueue(payload, {
          ...(opts.id !== undefined && { id: cloudTaskId(opts.id) }),
          ...(opts.delaySeconds && { scheduleDelaySeconds: Math.ceil(opts.delaySeconds) }),
        });
      } catch (e) {
        // The same id was enqueued before: that is the dedupe the port promises, not a failure.
        if (alreadyExists(e)) return;
        throw e;
      }
    },
  };
}
