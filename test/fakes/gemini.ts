import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the Gemini API's generateContent endpoint:
 * POST /{version}/models/{model}:generateContent with an x-goog-api-key header and a JSON body
 * {contents:[{role, parts:[{text}|{inlineData:{mimeType,data}}]}], systemInstruction, generationConfig}.
 * It checks requests as the real API does (plus: structured output is required), answers with the
 * documented error body when they fail, serves scripted replies in order, and records what it received.
 */
export type FakeGeminiReply =
  /** A candidate whose single part is `text`. */
  | { text: string; finishReason?: string; delayMs?: number }
  /** An HTTP error with Google's error body. */
  | { status: number; message?: string; delayMs?: number }
  /** A prompt blocked before any candidate is produced. */
  | { blockReason: string; delayMs?: number }
  /** A candidate stopped without content (e.g. SAFETY). */
  | { emptyCandidate: string; delayMs?: number };

export interface FakeGeminiRequest {
  apiVersion: string;
  model: string;
  apiKey: string | undefined;
  body: any;
  /** Text parts of the user contents, in order. */
  texts: string[];
  /** Decoded inline data parts of the user contents. */
  inline: { mimeType: string; bytes: Buffer }[];
  systemInstruction: string;
  generationConfig: any;
}

export interface FakeGemini {
  baseUrl: string;
  /** Requests that passed the checks (a scripted reply was then served). */
  requests: FakeGeminiRequest[];
  /** Requests refused by the checks, with the status and message sent back. */
  refused: { status: number; message: string }[];
  /** Appends replies to the script; each accepted request takes the next one. */
  reply(...replies: FakeGeminiReply[]): void;
  /** Convenience: a reply whose text is JSON.stringify(value). */
  replyJson(value: unknown): void;
  /**
   * A standing answer for every request `match` accepts (e.g. a test form by its bytes), served before the
   * script and never used up; later rules win. `reply` may be a function of the request (a reading per
   * document). Returns a function that removes the rule.
   */
  answer(match: (req: FakeGeminiRequest) => boolean, reply: FakeGeminiReply | ((req: FakeGeminiRequest) => FakeGeminiReply)): () => void;
  close(): Promise<void>;
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

// Fields of GenerateContentRequest; the real API refuses unknown names.
const REQUEST_FIELDS = new Set(['contents', 'systemInstruction', 'generationConfig', 'safetySettings', 'tools', 'toolConfig', 'cachedContent']);
const INLINE_TYPES = /^(application\/pdf|image\/(png|jpeg|webp|heic|heif)|text\/plain)$/;

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const isBase64 = (s: string) => /^[A-Za-z0-9+/_-]*={0,2}$/.test(s) && s.length % 4 !== 1;

export async function startFakeGemini(opts: { apiKey: string; model: string; apiVersion?: string }): Promise<FakeGemini> {
  const apiVersion = opts.apiVersion ?? 'v1';
  const script: FakeGeminiReply[] = [];
  const rules: { match: (req: FakeGeminiRequest) => boolean; reply: FakeGeminiReply | ((req: FakeGeminiRequest) => FakeGeminiReply) }[] = [];
  const fake: FakeGemini = {
    baseUrl: '',
    requests: [],
    refused: [],
    reply: (...r) => void script.push(...r),
    replyJson: (v) => void script.push({ text: JSON.stringify(v) }),
    answer: (match, reply) => {
      const rule = { match, reply };
      rules.unshift(rule);
      return () => {
        const i = rules.indexOf(rule);
        if (i >= 0) rules.splice(i, 1);
      };
    },
    close: async () => {},
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  const errorBody = (status: number, message: string, extra: Record<string, unknown> = {}) => ({
    error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN', ...extra },
  });

  const server = createServer(async (req, res) => {
    const raw = await read(req);
    const refuse = (status: number, message: string, extra?: Record<string, unknown>) => {
      fake.refused.push({ status, message });
      send(res, status, errorBody(status, message, extra));
    };
    const m = /^\/([^/]+)\/models\/([^/:]+):generateContent$/.exec((req.url ?? '').split('?')[0]);
    if (req.method !== 'POST' || !m) return refuse(404, `Requested entity was not found: ${req.method} ${req.url}`);
    const [, version, model] = m;
    if (version !== apiVersion || model !== opts.model) {
      return refuse(404, `models/${model} is not found for API version ${version}, or is not supported for generateContent.`);
    }
    const key = req.headers['x-goog-api-key'];
    if (key === undefined) {
      return refuse(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.");
    }
    if (key !== opts.apiKey) return refuse(400, 'API key not valid. Please pass a valid API key.', { details: [{ reason: 'API_KEY_INVALID' }] });

    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return refuse(400, 'Invalid JSON payload received.');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return refuse(400, 'Invalid JSON payload received.');
    for (const k of Object.keys(body)) {
      if (!REQUEST_FIELDS.has(k)) return refuse(400, `Invalid JSON payload received. Unknown name "${k}": Cannot find field.`);
    }
    if (!Array.isArray(body.contents) || body.contents.length === 0) return refuse(400, '* GenerateContentRequest.contents: contents is not specified');

    const texts: string[] = [];
    const inline: { mimeType: string; bytes: Buffer }[] = [];
    for (const [ci, content] of body.contents.entries()) {
      if (!Array.isArray(content?.parts) || content.parts.length === 0) return refuse(400, `* GenerateContentRequest.contents[${ci}].parts: contents.parts must not be empty.`);
      if (content.role !== undefined && content.role !== 'user' && content.role !== 'model') {
        return refuse(400, `Please use a valid role: user, model.`);
      }
      for (const [pi, part] of content.parts.entries()) {
        if (typeof part?.text === 'string') texts.push(part.text);
        else if (part?.inlineData) {
          const { mimeType, data } = part.inlineData;
          if (typeof mimeType !== 'string' || !INLINE_TYPES.test(mimeType)) return refuse(400, `Unsupported MIME type: ${mimeType}`);
          if (typeof data !== 'string' || !isBase64(data)) {
            return refuse(400, `Invalid value at 'contents[${ci}].parts[${pi}].inline_data.data' (TYPE_BYTES), Base64 decoding failed for "${String(data).slice(0, 20)}"`);
          }
          inline.push({ mimeType, bytes: Buffer.from(data, 'base64') });
        } else return refuse(400, `* GenerateContentRequest.contents[${ci}].parts[${pi}].data: required oneof field 'data' must have one initialized field`);
      }
    }

    const gc = body.generationConfig ?? {};
    const schema = gc.responseJsonSchema ?? gc.responseSchema;
    if (gc.responseJsonSchema !== undefined && gc.responseSchema !== undefined) {
      return refuse(400, 'responseSchema and responseJsonSchema cannot both be set.');
    }
    if (schema !== undefined && gc.responseMimeType !== 'application/json') {
      return refuse(400, `* GenerateContentRequest.generation_config.response_mime_type: must be application/json when response_schema is set.`);
    }
    // Not a rule of the real API, but of this project: every call uses structured output.
    if (gc.responseMimeType !== 'application/json' || !schema || typeof schema !== 'object') {
      return refuse(400, 'this fake requires structured output: generationConfig.responseMimeType application/json and a response schema');
    }

    const systemInstruction = (body.systemInstruction?.parts ?? []).map((p: any) => p?.text ?? '').join('\n');
    const request: FakeGeminiRequest = { apiVersion: version, model, apiKey: key as string, body, texts, inline, systemInstruction, generationConfig: gc };
    fake.requests.push(request);

    const standing = rules.find((r) => r.match(request))?.reply;
    const next = typeof standing === 'function' ? standing(request) : (standing ?? script.shift());
    if (!next) return send(res, 500, errorBody(500, 'fake Gemini: no scripted reply left'));
    if (next.delayMs) await new Promise((r) => setTimeout(r, next.delayMs));
    if (res.destroyed) return;
    const usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 50, totalTokenCount: 150 };
    if ('status' in next) return send(res, next.status, errorBody(next.status, next.message ?? `scripted ${next.status}`));
    if ('blockReason' in next) return send(res, 200, { promptFeedback: { blockReason: next.blockReason }, usageMetadata, modelVersion: model });
    if ('emptyCandidate' in next) {
      return send(res, 200, { candidates: [{ finishReason: next.emptyCandidate, index: 0, safetyRatings: [] }], usageMetadata, modelVersion: model });
    }
    send(res, 200, {
      candidates: [{ content: { role: 'model', parts: [{ text: next.text }] }, finishReason: next.finishReason ?? 'STOP', index: 0 }],
      usageMetadata,
      modelVersion: model,
      responseId: `fake-${fake.requests.length}`,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
