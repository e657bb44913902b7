import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { HttpHandler, HttpResponse } from './types.ts';
import { errorResponse, MAX_BODY_BYTES, tooLarge } from './handler.ts';
import { isKeyedPath, MAX_PAGE_BODY_BYTES } from './types.ts';
import { newId } from '../../core/ids.ts';
import { ApiError } from '../../core/errors.ts';
import { pageTooLarge } from '../pages/layout.ts';

type Read = { body: Buffer | undefined } | { tooLarge: true };

/**
 * Reads the body up to the limit and hands it to `done` (a callback, not a promise: every request comes this way);
 * a request with neither Content-Length nor chunked encoding has no body at all.
 */
function readBody(req: IncomingMessage, limit: number, done: (read: Read) => void, failed: () => void): void {
  const declared = req.headers['content-length'];
  const encoding = req.headers['transfer-encoding'];
  const chunked = encoding !== undefined && /chunked/i.test(encoding);
  if (declared === undefined && !chunked) return done({ body: undefined });
  if (declared !== undefined && Number(declared) > limit) return done({ tooLarge: true });
  const chunks: Buffer[] = [];
  let size = 0;
  // Only the first outcome counts: an error after the end, or the end after the limit, answers nothing more.
  let settled = false;
  const settle = (outcome: () => void) => {
    if (settled) return;
    settled = true;
    outcome();
  };
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      req.removeAllListeners('data');
      req.resume();
      settle(() => done({ tooLarge: true }));
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => settle(() => done({ body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) })));
  req.on('error', () => settle(failed));
}

/** Bodies up to this size are read at once (they come with the headers anyway); larger ones to the API and MCP wait for the key. */
const EAGER_BODY_BYTES = 64 * 1024;
/**
 * Bytes of large bodies read for callers not known yet (supplier pages, upload URLs) held at once; a body that would
 * go over is refused (429, Retry-After) before a byte of it is read. Four of the largest page posts.
 */
export const UNKNOWN_CALLER_BODY_BYTES = 4 * MAX_PAGE_BODY_BYTES;
let unknownCallerBytes = 0;

const busy = (): HttpResponse => {
  const res = errorResponse(new ApiError('resource-exhausted', 'body: too many large requests at once; retry in a few seconds', { reason: 'storeBusy' }));
  return { ...res, headers: { ...res.headers, 'retry-after': '5', connection: 'close', 'x-request-id': 'req_' + newId(16) } };
};

/** The too-large page links back to the form that posted: same path, its language kept, nothing else. */
function tooLargePage(url: string): HttpResponse {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const lang = new URLSearchParams(q === -1 ? '' : url.slice(q + 1)).get('lang');
  const back = /^\/[A-Za-z0-9/_-]*$/.test(path) ? path + (lang === 'en' || lang === 'he' ? `?lang=${lang}` : '') : null;
  const res = pageTooLarge(back);
  return { ...res, headers: { ...res.headers, connection: 'close' } };
}

let answers: Array<() => void> = [];

/** Writes the answers queued in this turn of the event loop, in order; one failing write does not hold up the others. */
function flushAnswers() {
  const due = answers;
  answers = [];
  for (const write of due) {
    try {
      write();
    } catch {
      // A socket that broke between the answer and its write; there is no one left to tell.
    }
  }
}

/**
 * Answers finished in one turn of the event loop go out together right after it (setImmediate runs as soon as the
 * turn's I/O callbacks are done; a lone request waits for nothing). Under load a turn handles many sockets: writing
 * each answer the moment it is ready interleaves the writes with the handling, and each write wakes the client
 * anew. Written back to back they cost the server a quarter less CPU a request (docs/performance.md).
 */
function writeAfterTurn(write: () => void) {
  if (answers.push(write) === 1) setImmediate(flushAnswers);
}

/** Adapts the framework-free handler to node:http. */
export function nodeListener(handler: HttpHandler, pagesPrefix = '/p') {
  const pay = `${pagesPrefix}/pay/`;
  const link = `${pagesPrefix}/link/`;
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    // Supplier pages (`{prefix}/pay/…`, `{prefix}/link/…`) take phone photos; the API keeps its own limit.
    const isPage = path.startsWith(pay) || path.startsWith(link);
    const declared = req.headers['content-length'];
    const chunked = req.headers['transfer-encoding'] !== undefined;
    try {
      if ((chunked || (declared !== undefined && Number(declared) > EAGER_BODY_BYTES)) && isKeyedPath(path)) {
        if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) return void answer(res, () => ({ ...tooLarge(), headers: { ...tooLarge().headers, connection: 'close', 'x-request-id': 'req_' + newId(16) } }));
        // The handler reads the body once the key is good; an answer given without it closes the connection
        // rather than take the rest in.
        let complete = false;
        const readLater = () =>
          new Promise<Buffer | 'too-large'>((resolve, reject) =>
            readBody(
              req,
              MAX_BODY_BYTES,
              (read) => {
                complete = !('tooLarge' in read);
                resolve('tooLarge' in read ? 'too-large' : (read.body ?? Buffer.alloc(0)));
              },
              () => reject(new ApiError('invalid-argument', 'body: the connection closed before the body ended')),
            ),
          );
        const request = { method: req.method ?? 'GET', path, query: q === -1 ? '' : url.slice(q + 1), headers: req.headers as Record<string, string | undefined>, body: undefined, readBody: readLater, remoteAddress: req.socket.remoteAddress };
        return void answer(res, () => handler(request), () => !complete);
      }
      // A large body read before the caller is known counts against what all such bodies may hold at once (a chunked one
      // as if it grew to the limit; one declared over the limit is refused unread by readBody). Small ones come with the headers.
      const limit = isPage ? MAX_PAGE_BODY_BYTES : MAX_BODY_BYTES;
      const size = declared !== undefined ? Number(declared) || 0 : chunked ? limit : 0;
      if (size > EAGER_BODY_BYTES && size <= limit) {
        if (unknownCallerBytes + size > UNKNOWN_CALLER_BODY_BYTES) return void answer(res, busy);
        unknownCallerBytes += size;
        res.once('close', () => (unknownCallerBytes -= size));
      }
      readBody(
        req,
        limit,
        (read) => {
          if ('tooLarge' in read) {
            return void answer(res, () =>
              isPage ? tooLargePage(url) : { ...tooLarge(), headers: { ...tooLarge().headers, connection: 'close', 'x-request-id': 'req_' + newId(16) } },
            );
          }
          void answer(res, () =>
            handler({
              method: req.method ?? 'GET',
              path,
              query: q === -1 ? '' : url.slice(q + 1),
              headers: req.headers as Record<string, string | undefined>,
              body: read.body,
              remoteAddress: req.socket.remoteAddress,
            }),
          );
        },
        () => answerInternal(res),
      );
    } catch {
      answerInternal(res);
    }
  };
}

/**
 * Writes the handler's answer: a whole body after this turn (writeAfterTurn), a stream piped as it comes. `unread`
 * says the request's body was left (partly) unread: the connection then closes after the answer.
 */
async function answer(res: ServerResponse, respond: () => HttpResponse | Promise<HttpResponse>, unread?: () => boolean): Promise<void> {
  try {
    const out = await respond();
    if (unread?.()) out.headers.connection = 'close';
    // A known length avoids chunked encoding: one write, and less work for the client.
    if (typeof out.body === 'string' || Buffer.isBuffer(out.body)) {
      out.headers['content-length'] = String(Buffer.byteLength(out.body));
      const { status, headers, body } = out;
      writeAfterTurn(() => {
        if (res.destroyed) return; // the client went away meanwhile
        try {
          res.writeHead(status, headers);
          res.end(body);
        } catch {
          answerInternal(res); // a header Node refuses: the same answer as a failure before the write
        }
      });
      return;
    }
    res.writeHead(out.status, out.headers);
    await pipeline(out.body, res).catch(() => res.destroy()); // the client went away, or the store failed mid-file
  } catch {
    answerInternal(res);
  }
}

/** The envelope's `internal` error, for a failure the handler did not turn into an answer itself. */
function answerInternal(res: ServerResponse) {
  if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ok: false, error: { code: 'internal', message: 'internal error', details: { reason: 'internal' } } }));
}
