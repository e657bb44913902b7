import assert from 'node:assert/strict';
import type { HttpHandler, HttpResponse } from '../functions/src/surfaces/http/types.ts';

/**
 * The person's part of a consent return (issue 20 item 10): the return page shows what is being connected and a form;
 * nothing is connected until that form is posted. These helpers do what a browser does on that page.
 */

/** The one-time token of a confirmation page's form, or null when the page has no form (a failure page). */
export function confirmToken(body: string): string | null {
  const form = /<form method="post" action="confirm">([\s\S]*?)<\/form>/.exec(body);
  return form ? (/name="token" value="([^"]+)"/.exec(form[1])?.[1] ?? null) : null;
}

/** Posts the page's form, as its Connect (or Cancel) button does: urlencoded, to `confirm` beside the callback. */
export async function postConfirm(http: HttpHandler, callbackPath: string, token: string, decision: 'confirm' | 'cancel' = 'confirm'): Promise<HttpResponse> {
  const path = callbackPath.replace(/\/callback$/, '/confirm');
  const body = Buffer.from(new URLSearchParams({ token, decision }).toString());
  return http({ method: 'POST', path, query: '', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) }, body });
}

/**
 * Follows the provider's redirect into the return page (GET), and when it asks for confirmation, confirms (POST).
 * `res`/`body` are the final page (the connected page, or the failure page); `asked` is the confirmation page.
 */
export async function returnAndConfirm(http: HttpHandler, back: URL): Promise<{ res: HttpResponse; body: string; asked: { res: HttpResponse; body: string } | null }> {
  const first = await http({ method: 'GET', path: back.pathname, query: back.search.slice(1), headers: {}, body: undefined });
  const firstBody = String(first.body);
  const token = first.status === 200 ? confirmToken(firstBody) : null;
  if (!token) return { res: first, body: firstBody, asked: null };
  assert.match(firstBody, /Confirm the connection/, 'the return page asks before connecting');
  const res = await postConfirm(http, back.pathname, token);
  return { res, body: String(res.body), asked: { res: first, body: firstBody } };
}
