import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The one call firebase-admin makes to the Firebase Auth emulator when it verifies an ID token there (it checks the
 * user is not disabled): Identity Toolkit v1 `accounts.lookup`, as published at
 * https://cloud.google.com/identity-platform/docs/reference/rest/v1/accounts/lookup (POST
 * `/identitytoolkit.googleapis.com/v1/projects/{targetProjectId}/accounts:lookup`, body `{localId: string[]}`, answer
 * `{kind, users?: UserInfo[]}`), with the emulator's admin credential `Authorization: Bearer owner`. Anything else is
 * refused as Google's APIs refuse it (`{error: {code, message, status}}`).
 */
export interface FakeAuthUser {
  localId: string;
  email: string;
  emailVerified: boolean;
  disabled?: boolean;
}

const LOOKUP_FIELDS = new Set(['idToken', 'localId', 'email', 'phoneNumber', 'federatedUserId', 'delegatedProjectNumber', 'initialEmail', 'tenantId', 'targetProjectId']);

export async function startFakeAuthEmulator(projectId: string, users: FakeAuthUser[]): Promise<{ host: string; lookups: number; close(): Promise<void> }> {
  const state = { lookups: 0 };
  const fail = (res: import('node:http').ServerResponse, code: number, status: string, message: string) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code, message, status } }));
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== `/identitytoolkit.googleapis.com/v1/projects/${projectId}/accounts:lookup`) return fail(res, 404, 'NOT_FOUND', `no fake for ${req.method} ${req.url}`);
      if (req.headers.authorization !== 'Bearer owner') return fail(res, 401, 'UNAUTHENTICATED', 'the emulator takes Bearer owner for admin calls');
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return fail(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      }
      const unknown = Object.keys(body).find((k) => !LOOKUP_FIELDS.has(k));
      if (unknown) return fail(res, 400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "${unknown}"`);
      if (body.localId !== undefined && (!Array.isArray(body.localId) || body.localId.some((x) => typeof x !== 'string'))) return fail(res, 400, 'INVALID_ARGUMENT', 'localId: expected a list of strings');
      state.lookups++;
      const ids = new Set((body.localId as string[] | undefined) ?? []);
      const found = users.filter((u) => ids.has(u.localId)).map((u) => ({ ...u, disabled: u.disabled ?? false, validSince: '0', createdAt: '0', lastLoginAt: '0', providerUserInfo: [] }));
      res.writeHead(200, { 'content-type': 'application/json' });
      // Google leaves `users` out when nothing matched.
      res.end(JSON.stringify(found.length ? { kind: 'identitytoolkit#GetAccountInfoResponse', users: found } : { kind: 'identitytoolkit#GetAccountInfoResponse' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    get lookups() {
      return state.lookups;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
