import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';

/**
 * Plain HTTP requests on kept-alive connections, for the calls made once per imported mail (Gmail's, Gemini's):
 * node:http costs a fraction of the CPU of `fetch` or a provider SDK's request pipeline, and keeps V8 from compiling
 * their code through a long import (issue 23). Idle sockets do not hold the process open: Node unrefs them.
 */
type Client = { agent: Agent; request: (url: string, o: RequestOptions, cb: (res: IncomingMessage) => void) => ClientRequest };
/** Loaded with the first request: node:https (TLS) costs a process that makes none about 9 MB (the accZip bench's). */
const clients: { http?: Client; https?: Client } = {};
function client(https: boolean): Client {
  const key = https ? 'https' : 'http';
  if (!clients[key]) {
    const m = process.getBuiltinModule(`node:${key}`) as typeof import('node:http');
    clients[key] = { agent: new m.Agent({ keepAlive: true }), request: m.request };
  }
  return clients[key];
}

export interface PlainAnswer {
  status: number;
  /** The Content-Type header ('' when absent). */
  type: string;
  text: string;
}

/**
 * One request: the status, content type and body as text. Rejects on a socket failure or a body cut off, on an
 * answer over `maxBytes` (Error "the answer is too large"), and after `timeoutMs` in all (an Error named TimeoutError).
 */
export function plainRequest(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body: string | null, o: { timeoutMs: number; maxBytes?: number }): Promise<PlainAnswer> {
  return new Promise((resolve, reject) => {
    const c = client(url.startsWith('https:'));
    const req = c.request(url, { method, headers, agent: c.agent }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (o.maxBytes !== undefined && size > o.maxBytes) return void req.destroy(new Error('the answer is too large'));
        chunks.push(c);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('the answer was cut off')));
    });
    function fail(e: Error) {
      clearTimeout(timer);
      reject(e);
    }
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timed out'), { name: 'TimeoutError' })), o.timeoutMs);
    req.on('error', fail);
    req.end(body ?? undefined);
  });
}
