import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * Plain HTTP requests on kept-alive connections, for the calls made once per imported mail (Gmail's, Gemini's):
 * node:http costs a fraction of the CPU of `fetch` or a provider SDK's request pipeline, and keeps V8 from compiling
 * their code through a long import (issue 23). Idle sockets do not hold the process open: Node unrefs them.
 */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

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
    const https = url.startsWith('https:');
    const req = (https ? httpsRequest : httpRequest)(url, { method, headers, agent: https ? agents.https : agents.http }, (res) => {
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
