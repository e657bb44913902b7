import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../functions/src/config.ts';
import { createApp, type App, type AppOverrides } from '../functions/src/app.ts';
import { registry as defaultRegistry, type Registry } from '../functions/src/operations/index.ts';
import { createBusiness } from '../functions/src/domain/business.ts';
import { issueApiKey, authenticate, memberPath } from '../functions/src/core/auth.ts';
import { execute } from '../functions/src/core/execute.ts';
import { silentLogger } from '../functions/src/core/logger.ts';
import { createHttpHandler } from '../functions/src/surfaces/http/handler.ts';
import { nodeListener } from '../functions/src/surfaces/http/node.ts';
import type { HttpHandler } from '../functions/src/surfaces/http/types.ts';
import type { Role } from '../functions/src/core/context.ts';

export interface TestUser {
  businessId: string;
  userId: string;
  email: string;
  apiKey: string;
}

export interface Harness {
  app: App;
  config: Config;
  registry: Registry;
  http: HttpHandler;
  /** The owner (admin) of a fresh business. */
  owner: TestUser;
  /** In-process call as `user` (default: owner); returns the result or throws the ApiError. */
  call<T = any>(operation: string, input?: unknown, user?: TestUser): Promise<T>;
  /** Adds a member with `role` to `businessId` (default: the owner's business) and gives them a key. */
  addMember(role: Role, businessId?: string): Promise<TestUser>;
  /** Another business with its own owner. */
  newBusiness(name?: string): Promise<TestUser>;
  /** Starts a real node:http server on 127.0.0.1 and returns its origin. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The dashboards consent tests return to (ALLOWED_ORIGINS): a consent start takes no other `origin`. */
export const TEST_APP_ORIGINS = 'https://app.example.com,https://dash.example.com,https://x.example.com';

let counter = 0;

export async function createHarness(opts: { env?: Record<string, string>; registry?: Registry; overrides?: AppOverrides } = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bfo-test-'));
  const config = loadConfig({ DATA_DIR: dataDir, STRICT_INDEXES: '1', VALIDATE_OUTPUT: '1', ...opts.env });
  const app = await createApp(config, { logger: silentLogger, ...opts.overrides });
  const registry = opts.registry ?? defaultRegistry;
  const http = createHttpHandler(app, registry);
  const { store, clock, ids } = app.services;
  let server: Server | undefined;

  async function newBusiness(name = 'Test Business'): Promise<TestUser> {
    const email = `owner${++counter}@example.com`;
    const b = await createBusiness(store, ids, { name, email }, clock.now());
    const { apiKey } = await issueApiKey(store, { businessId: b.businessId, userId: b.userId, name: 'test key' }, clock.now());
    return { businessId: b.businessId, userId: b.userId, email, apiKey };
  }

  const owner = await newBusiness();

  return {
    app,
    config,
    registry,
    http,
    owner,
    async call(operation, input = {}, user = owner) {
      const op = registry.get(operation);
      if (!op) throw new Error(`no operation ${operation}`);
      const caller = await authenticate(store, `Bearer ${user.apiKey}`, clock.now());
      const { result } = await execute(op, input, caller, app.services, 'test');
      return result as any;
    },
    async addMember(role, businessId = owner.businessId) {
      const userId = ids();
      const email = `member${++counter}@example.com`;
      await store.set(`users/${userId}`, { userId, email, emailVerified: true, createdAt: new Date(clock.now()).toISOString() });
      await store.set(memberPath(businessId, userId), { userId, email, role, joinedAt: new Date(clock.now()).toISOString() });
      const { apiKey } = await issueApiKey(store, { businessId, userId, name: `${role} key` }, clock.now());
      return { businessId, userId, email, apiKey };
    },
    newBusiness,
    async listen() {
      // One server per harness: a second call returns the same origin, so close() stops everything.
      if (server) return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      server = createServer(nodeListener(http, new URL(config.publicLinkBase).pathname.replace(/\/+$/, '')));
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
