import { connect } from 'node:net';

/** Small HTTP helpers for tests that talk to a real server. */
export async function post(origin: string, path: string, body: unknown, apiKey?: string, headers: Record<string, string> = {}) {
  const res = await fetch(origin + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

export async function get(origin: string, path: string, apiKey?: string) {
  const res = await fetch(origin + path, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

/** Sends raw bytes (e.g. a POST with no body and no Content-Length, as `curl -X POST` does) and returns the status line and head. */
export function rawRequest(origin: string, request: string): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let data = '';
    socket.on('data', (c) => {
      data += c;
      const end = data.indexOf('\r\n\r\n');
      if (end !== -1) {
        const head = data.slice(0, end);
        const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (data.length >= end + 4 + len) {
          socket.end();
          resolve({ status: Number(head.split(' ')[1]), head, body: data.slice(end + 4, end + 4 + len) });
        }
      }
    });
    socket.on('error', reject);
  });
}
