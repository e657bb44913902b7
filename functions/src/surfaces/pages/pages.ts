import type { App } from '../../app.ts';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types.ts';
import type { PaymentRecord } from '../../domain/payments/payments.ts';
import { isApiError } from '../../core/errors.ts';
import { businessPath, profileOf } from '../../domain/business.ts';
import {
  attachInvoice,
  businessBySlug,
  fileStandingRequest,
  isSubmissionId,
  isSubmissionInvalid,
  newSubmissionId,
  paymentByToken,
  submitPayout,
  TooManyFiles,
  type SubmissionInvalid,
  type Upload,
} from '../../domain/payments/supplierSubmission.ts';
import { clientIp, hit, type Limit } from '../../core/rateLimit.ts';
import { shrinkImage } from '../../core/images.ts';
import { langParam, messages, type Lang } from './i18n.ts';
import { messagePage, redirect } from './layout.ts';
import { FormError, parseForm, type Form } from './multipart.ts';
import { paymentPage, standingLinkPage, type Notice } from './views.ts';

/**
 * The supplier-facing pages under the path of PUBLIC_LINK_BASE: `/pay/<token>` (one payment's link)
 * and `/link/<slug>` (a business's standing request link). Server-rendered, no JavaScript.
 * A successful POST redirects (303) to the payment's page, so a reload never posts again.
 */
export function createPagesHandler(app: App): HttpHandler {
  const s = app.services;
  const prefix = new URL(s.config.publicLinkBase).pathname.replace(/\/+$/, '');

  /** The page's URL in a language; `lang=` is written only when it is not the page's default. */
  const withLang = (path: string, lang: Lang, extra: Record<string, string> = {}, def: Lang = 'he') => {
    const q = new URLSearchParams({ ...(lang !== def ? { lang } : {}), ...extra }).toString();
    return q ? `${path}?${q}` : path;
  };
  const switchOf = (path: string, lang: Lang, def: Lang = 'he') => withLang(path, lang === 'he' ? 'en' : 'he', {}, def);
  /** A payment in a foreign currency pays someone abroad: its page opens in English, Hebrew a click away. */
  const defaultLang = (p: PaymentRecord): Lang => (p.currency && p.currency !== 'ILS' ? 'en' : 'he');

  /** The business as the page names it, with its company id. */
  async function business(businessId: string, lang: Lang): Promise<{ businessName: string; companyId: string }> {
    const doc = await s.store.get(businessPath(businessId));
    const p = profileOf(doc?.data ?? {});
    const businessName = (lang === 'en' ? p.businessNameEn || p.businessName || p.nameEn || p.name : p.businessName || p.name || p.businessNameEn || p.nameEn) || '—';
    return { businessName, companyId: p.companyId };
  }

  /** The common parts of a payment page: the business, this page's URLs in the language, the proof's link. */
  async function paymentCommon(path: string, payment: PaymentRecord, lang: Lang) {
    const def = defaultLang(payment);
    const proofUrl = payment.proof ? ((await s.files.ref(payment.businessId, payment.proof.fileId))?.url ?? null) : null;
    return { lang, payment, ...(await business(payment.businessId, lang)), action: withLang(path, lang, {}, def), switchHref: switchOf(path, lang, def), proofUrl };
  }

  const notFoundPage = (lang: Lang, path: string | null = null) => {
    const t = messages(lang);
    return messagePage(404, lang, t.notFoundTitle, t.notFoundBody, path && switchOf(path, lang));
  };
  /** The posted form, or null when it cannot be read (answered with the bad-form page). */
  async function readForm(req: HttpRequest): Promise<Form | null> {
    try {
      return await parseForm(req.headers['content-type'], req.body);
    } catch (e) {
      if (e instanceof FormError) return null;
      throw e;
    }
  }
  const badForm = (lang: Lang) => messagePage(400, lang, messages(lang).badFormTitle, messages(lang).badFormBody);

  /** The chosen file, a photo shrunk first (phones send 8-20 MB); a file cut at the limit stays too large. */
  const upload = async (form: Form): Promise<Upload | null> => {
    if (!form.invoice) return null;
    const file = { fileName: form.invoice.fileName, contentType: form.invoice.contentType, bytes: form.invoice.bytes };
    return form.invoice.tooLarge ? file : shrinkImage(file);
  };

  /** The entered values to refill a refused form with (files cannot be refilled). */
  const valuesOf = (form: Form) => {
    const { submissionId: _s, action: _a, switchLang: _l, ...rest } = form.fields;
    return rest;
  };

  async function showPayment(path: string, token: string, asked: Lang | null, query: URLSearchParams): Promise<HttpResponse> {
    const payment = await paymentByToken(s.store, token);
    if (!payment) return notFoundPage(asked ?? 'he', path);
    const lang = asked ?? defaultLang(payment);
    const notice: Notice = query.get('done') === '1' ? 'done' : query.get('notice') === 'stale' ? 'stale' : null;
    return paymentPage({ ...(await paymentCommon(path, payment, lang)), notice, submissionId: newSubmissionId() });
  }

  async function postPayment(req: HttpRequest, path: string, token: string, asked: Lang | null): Promise<HttpResponse> {
    const payment = await paymentByToken(s.store, token);
    if (!payment) return notFoundPage(asked ?? 'he', path);
    const lang = asked ?? defaultLang(payment);
    const def = defaultLang(payment);
    const form = await readForm(req);
    if (!form) return badForm(lang);
    // The language switch posted the form: show it again in the other language with what was typed.
    if (form.fields.switchLang) {
      return paymentPage({ ...(await paymentCommon(path, payment, lang)), notice: null, submissionId: isSubmissionId(form.fields.submissionId) ? form.fields.submissionId : newSubmissionId(), values: valuesOf(form) });
    }
    const { submissionId, action } = form.fields;
    if (!isSubmissionId(submissionId) || (action !== 'payout' && action !== 'invoice')) return badForm(lang);
    try {
      const result =
        action === 'payout'
          ? await submitPayout(s, {
              token,
              submissionId,
              payout: form.fields,
              amount: form.fields.amount,
              invoice: await upload(form),
              lang,
            })
          : await attachInvoice(s, { token, submissionId, invoice: await upload(form), lang });
      return redirect(withLang(path, lang, result.outcome === 'applied' ? { done: '1' } : {}, def));
    } catch (e) {
      if (isSubmissionInvalid(e)) return refusedPayment(e, payment, form, path, lang, submissionId);
      if (e instanceof TooManyFiles) return messagePage(429, lang, messages(lang).tooManyTitle, messages(lang).tooManyFiles, switchOf(path, lang, def));
      if (isApiError(e) && e.code === 'failed-precondition') return redirect(withLang(path, lang, { notice: 'stale' }, def));
      if (isApiError(e) && e.code === 'not-found') return notFoundPage(lang, path);
      throw e;
    }
  }

  async function refusedPayment(e: SubmissionInvalid, payment: PaymentRecord, form: Form, path: string, lang: Lang, submissionId: string) {
    // The refused submission applied nothing, so its id stays good for the corrected form.
    return paymentPage({ ...(await paymentCommon(path, payment, lang)), notice: null, submissionId, values: valuesOf(form), problems: e.problems, chooseAgain: form.invoice !== null }, 422);
  }

  async function showLink(path: string, slug: string, lang: Lang): Promise<HttpResponse> {
    const businessId = await businessBySlug(s.store, slug);
    if (!businessId) return notFoundPage(lang, path);
    return standingLinkPage({ lang, ...(await business(businessId, lang)), action: withLang(path, lang), switchHref: switchOf(path, lang), submissionId: newSubmissionId() });
  }

  async function postLink(req: HttpRequest, path: string, slug: string, lang: Lang): Promise<HttpResponse> {
    const businessId = await businessBySlug(s.store, slug);
    if (!businessId) return notFoundPage(lang, path);
    const form = await readForm(req);
    if (!form) return badForm(lang);
    const f = form.fields;
    if (f.switchLang) {
      return standingLinkPage({ lang, ...(await business(businessId, lang)), action: withLang(path, lang), switchHref: switchOf(path, lang), submissionId: isSubmissionId(f.submissionId) ? f.submissionId : newSubmissionId(), values: valuesOf(form) });
    }
    if (!isSubmissionId(f.submissionId)) return badForm(lang);
    try {
      const result = await fileStandingRequest(s, {
        slug,
        submissionId: f.submissionId,
        name: f.name,
        phone: f.phone,
        email: f.email,
        amount: f.amount,
        vatIncluded: f.vatIncluded === 'on',
        noVat: f.noVat === 'on',
        description: f.description,
        payout: f,
        invoice: await upload(form),
        lang,
      });
      // The filer is the supplier: their new payment's own page shows its state and takes a later invoice.
      return redirect(withLang(`${prefix}/pay/${result.payment.linkToken}`, lang, result.outcome === 'applied' ? { done: '1' } : {}));
    } catch (e) {
      if (isSubmissionInvalid(e)) {
        return standingLinkPage(
          { lang, ...(await business(businessId, lang)), action: withLang(path, lang), switchHref: switchOf(path, lang), submissionId: f.submissionId, values: valuesOf(form), problems: e.problems, chooseAgain: form.invoice !== null },
          422,
        );
      }
      if (isApiError(e) && e.code === 'not-found') return notFoundPage(lang, path);
      throw e;
    }
  }

  /** Over a limit: a page in the visitor's language, 429 with Retry-After. Nothing of the request ran. */
  const tooMany = (lang: Lang, retryAfterSec: number) => {
    const t = messages(lang);
    const res = messagePage(429, lang, t.tooManyTitle, t.tooManyBody(Math.max(1, Math.ceil(retryAfterSec / 60))));
    return { ...res, headers: { ...res.headers, 'retry-after': String(retryAfterSec) } };
  };

  /** Per-IP limit on every page request; per-link limit on posts; a daily cap on standing-link filings. */
  async function overLimit(req: HttpRequest, kind: string, key: string): Promise<number> {
    const l = s.config.pageLimits;
    const ip = clientIp(req.headers, req.remoteAddress, s.config.trustedProxyHops);
    const limits: Limit[] = [{ key: `page-ip:${ip}`, max: l.perIpPerMin, windowMs: 60_000 }];
    if (req.method === 'POST') {
      limits.push({ key: `page-link:${kind}:${key}`, max: l.perLinkPerMin, windowMs: 60_000 });
      if (kind === 'link') limits.push({ key: `page-filings:${key}`, max: l.filingsPerLinkPerDay, windowMs: 86_400_000 });
    }
    const verdict = await hit(s.store, limits, s.clock.now());
    return verdict.allowed ? 0 : verdict.retryAfterSec;
  }

  return async (req) => {
    const asked = langParam(req.query);
    const lang = asked ?? 'he';
    const m = /^\/(pay|link)\/([^/]+)\/?$/.exec(req.path.slice(prefix.length));
    try {
      if (!m) return notFoundPage(lang);
      const kind = m[1];
      // A link copied from a chat may carry invisible marks (RLM) or spaces; slugs are case-insensitive.
      let key = m[2];
      try {
        key = decodeURIComponent(key);
      } catch {
        return notFoundPage(lang);
      }
      key = key.replace(/[\s\u200e\u200f\u202a-\u202e\u2066-\u2069\u00a0]/g, '');
      if (kind === 'link') key = key.toLowerCase();
      const path = `${prefix}/${kind}/${key}`;
      const wait = await overLimit(req, kind, key);
      if (wait) return tooMany(lang, wait);
      if (req.method === 'GET' || req.method === 'HEAD') {
        const res = kind === 'pay' ? await showPayment(path, key, asked, new URLSearchParams(req.query)) : await showLink(path, key, lang);
        return req.method === 'HEAD' ? { ...res, body: '' } : res;
      }
      if (req.method === 'POST') return kind === 'pay' ? await postPayment(req, path, key, asked) : await postLink(req, path, key, lang);
      const res = messagePage(405, lang, messages(lang).badFormTitle, messages(lang).badFormBody);
      return { ...res, headers: { ...res.headers, allow: 'GET, HEAD, POST' } };
    } catch (e) {
      // The token is a secret: log only its start.
      s.logger.error('public page failed', { method: req.method, page: m ? `${m[1]}/${m[2].slice(0, 6)}…` : req.path, error: e instanceof Error ? e.stack : String(e) });
      return messagePage(500, lang, messages(lang).errorTitle, messages(lang).errorBody);
    }
  };
}
