import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { createHarness, type Harness } from '../../harness.ts';
import { nodeListener } from '../../../functions/src/surfaces/http/node.ts';
import { SERVICE_PREFIXES, withDashboard } from '../../../functions/src/surfaces/dashboard/dashboard.ts';

/**
 * Issue 34 C14: the OAuth discovery paths MCP clients probe after a 401 answered 200 with the dashboard's HTML,
 * so clients built on the MCP SDK failed with `SyntaxError: Unexpected token '<'` instead of the key's 401.
 */
const DISCOVERY = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-authorization-server/mcp',
  '/.well-known/openid-configuration',
  '/.well-known/openid-configuration/mcp',
  '/mcp/.well-known/openid-configuration',
];

describe('OAuth discovery on a server that takes API keys', () => {
  let h: Harness;
  let server: Server;
  let origin = '';
  before(async () => {
    h = await createHarness();
    // As npm start serves it: the dashboard's app answers every GET outside the service's paths.
    const index = { body: Buffer.from('<!doctype html><html><body>dashboard</body></html>'), gzip: null, type: 'text/html; charset=utf-8', immutable: false };
    server = createServer(withDashboard(nodeListener(h.http), { assets: async () => new Map([['/index.html', index]]), csp: "default-src 'self'", firebaseInit: {}, servicePrefixes: SERVICE_PREFIXES }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    await h.close();
  });

  it('every discovery path answers a JSON 404 in the envelope, not the dashboard', async () => {
    assert.match(await (await fetch(`${origin}/payments`)).text(), /dashboard/, 'the app still serves its own routes');
    for (const path of DISCOVERY) {
      const res = await fetch(origin + path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, path);
      const body = (await res.json()) as any;
      assert.equal(body.error.code, 'not-found', path);
      assert.match(body.error.message, /no OAuth/, path);
    }
  });

  it('Hosting sends the same paths to the function, ahead of its index.html fallback', () => {
    const rewrites = (JSON.parse(readFileSync(new URL('../../../firebase.json', import.meta.url), 'utf8')) as any).hosting.rewrites as { source: string; function?: { functionId: string }; destination?: string }[];
    const fallback = rewrites.findIndex((r) => r.destination === '/index.html');
    // Hosting's globs: `**` any depth, `*` one segment.
    const glob = (g: string) => new RegExp('^' + g.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '.*') + '$');
    for (const path of [...DISCOVERY, '/register']) {
      const i = rewrites.findIndex((r) => glob(r.source).test(path));
      assert.ok(i !== -1 && i < fallback && rewrites[i].function?.functionId === 'api', `${path} goes to the api function`);
    }
  });

  // A client that would do OAuth if the server offered it (as mcp-remote and the Inspector are).
  const oauthProvider = () => ({
    get redirectUrl() {
      return 'http://127.0.0.1:1/callback';
    },
    get clientMetadata() {
      return { redirect_uris: ['http://127.0.0.1:1/callback'], client_name: 'test' };
    },
    clientInformation: () => undefined,
    saveClientInformation: () => {},
    tokens: () => undefined,
    saveTokens: () => {},
    redirectToAuthorization: () => {},
    saveCodeVerifier: () => {},
    codeVerifier: () => 'v',
  });
  const WRONG_KEY = 'Bearer bfo_wrongwrongwrongwrongwrongwrongwrongwrongwro';

  it('the MCP SDK 1.x client with an OAuth provider and a wrong key fails with the 401, not a SyntaxError', async () => {
    const provider: OAuthClientProvider = oauthProvider();
    const client = new Client1({ name: 'oauth-test', version: '1.0.0' });
    const transport = new Transport1(new URL('/mcp', origin), { authProvider: provider, requestInit: { headers: { authorization: WRONG_KEY } } });
    const err = await client.connect(transport).then(() => null, (e: Error) => e);
    assert.ok(err, 'the connection fails');
    assert.doesNotMatch(String(err), /SyntaxError|Unexpected token/);
    assert.match(String(err), /HTTP 401.*invalid API key/s);
  });

  it('the MCP SDK 2.x client with an OAuth provider and a wrong key fails with the 401, not a SyntaxError', async () => {
    const client = new Client2({ name: 'oauth-test', version: '1.0.0' });
    const transport = new Transport2(new URL('/mcp', origin), { authProvider: oauthProvider() as never, requestInit: { headers: { authorization: WRONG_KEY } } });
    const err = await client.connect(transport).then(() => null, (e: Error) => e);
    assert.ok(err, 'the connection fails');
    assert.doesNotMatch(String(err), /SyntaxError|Unexpected token/);
    assert.match(String(err), /HTTP 401.*invalid API key/s);
  });

  it('the MCP SDK 2.x client without an OAuth provider and a wrong key fails with the 401 and its message', async () => {
    const client = new Client2({ name: 'oauth-test', version: '1.0.0' });
    const transport = new Transport2(new URL('/mcp', origin), { requestInit: { headers: { authorization: WRONG_KEY } } });
    const err = await client.connect(transport).then(() => null, (e: Error) => e);
    assert.ok(err, 'the connection fails');
    assert.doesNotMatch(String(err), /SyntaxError|Unexpected token/);
    assert.match(String(err), /invalid API key/);
  });
});
