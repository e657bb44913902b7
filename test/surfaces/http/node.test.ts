import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeListener } from '../../../functions/src/surfaces/http/node.ts';
import type { HttpHandler } from '../../../functions/src/surfaces/http/types.ts';

/** The node:http adapter writes the answers of one event-loop turn together after it; each must reach its own request. */

async function listen(handler: HttpHandler): Promise<{ server: Server; port: number }> {
  const server = createServer(nodeListener(handler));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

function post(port: number, path: string, agent: Agent): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': 2 } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

test('many requests at once on kept-alive connections each get their own answer, whether it is ready at once or later', async () => {
  // Some answers are ready in the turn that read the request, some a few milliseconds later, so turns mix both.
  const handler: HttpHandler = async (req) => {
    const n = Number(req.path.slice(1));
    if (n % 3 === 1) await new Promise((r) => setTimeout(r, n % 7));
    if (n % 3 === 2) await Promise.resolve();
    return { status: 200 + (n % 2), headers: { 'content-type': 'application/json', 'x-n': String(n) }, body: JSON.stringify({ n }) };
  };
  const { server, port } = await listen(handler);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  try {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, n) => post(port, `/${n}`, agent)));
    answers.forEach((a, n) => {
      assert.equal(a.status, 200 + (n % 2));
      assert.deepEqual(JSON.parse(a.body), { n });
      assert.equal(a.headers['x-n'], String(n));
      assert.equal(a.headers['content-length'], String(Buffer.byteLength(a.body)));
    });
  } finally {
    agent.destroy();
    server.close();
  }
});

test('a client that leaves before its answer is written does not stop the server answering the others', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const heldArrived = new Promise<void>((r) => (arrived = r));
  const handler: HttpHandler = async (req) => {
    if (req.path === '/held') {
      arrived();
      await held;
    }
    return { status: 200, headers: { 'content-type': 'text/plain' }, body: req.path };
  };
  const { server, port } = await listen(handler);
  const agent = new Agent({ keepAlive: true });
  try {
    const gone = new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/held', method: 'POST', headers: { 'content-length': 2 } });
      req.on('error', (e) => resolve((e as NodeJS.ErrnoException).code ?? 'error'));
      req.end('{}');
      void heldArrived.then(() => req.destroy());
    });
    assert.equal(await gone, 'ECONNRESET');
    release();
    await new Promise((r) => setTimeout(r, 20));
    const after = await post(port, '/next', agent);
    assert.equal(after.status, 200);
    assert.equal(after.body, '/next');
  } finally {
    agent.destroy();
    server.close();
  }
});

test('an answer with a header Node refuses is the envelope\'s internal error, not a request left hanging', async () => {
  const handler: HttpHandler = async () => ({ status: 200, headers: { 'content-type': 'text/plain', 'x-bad': 'line\nbreak' }, body: 'never sent' });
  const { server, port } = await listen(handler);
  const agent = new Agent({ keepAlive: true });
  try {
    const res = await post(port, '/x', agent);
    assert.equal(res.status, 500);
    assert.deepEqual(JSON.parse(res.body), { ok: false, error: { code: 'internal', message: 'internal error', details: { reason: 'internal' } } });
  } finally {
    agent.destroy();
    server.close();
  }
});
