import type { HttpResponse } from '../http/types.ts';
import { OWNER_ROUTE } from '../../core/links.ts';
import { html } from './html.ts';
import { page } from './layout.ts';

/**
 * What an owner's link opens (`/payments/<id>`, `/invoices/<id>`, `/invite/<token>` under DASHBOARD_URL)
 * while no dashboard answers there: an HTML page saying where the record is, never JSON. A dashboard served
 * at these paths takes them over; these pages are only the fallback.
 */
const TEXT = {
  payments: {
    he: { title: 'תשלום', body: 'הקישור הזה פותח את התשלום בלוח הבקרה, שעדיין לא מותקן בכתובת הזו. בינתיים אפשר לראות אותו דרך ה-API או כלי ה-MCP:' },
    en: { title: 'Payment', body: 'This link opens the payment in the dashboard, which is not installed at this address yet. Meanwhile, see it through the API or the MCP tools:' },
    call: (id: string) => `paymentGet { "paymentId": "${id}" }`,
  },
  invoices: {
    he: { title: 'חשבונית', body: 'הקישור הזה פותח את החשבונית בלוח הבקרה, שעדיין לא מותקן בכתובת הזו. בינתיים אפשר לראות אותה דרך ה-API או כלי ה-MCP:' },
    en: { title: 'Invoice', body: 'This link opens the invoice in the dashboard, which is not installed at this address yet. Meanwhile, see it through the API or the MCP tools:' },
    call: (id: string) => `invoiceGet { "docId": "${id}" }`,
  },
  invite: {
    he: { title: 'הזמנה לצוות', body: 'ההזמנה מתקבלת בכניסה ללוח הבקרה עם כתובת המייל שאליה נשלחה. לוח הבקרה עדיין לא מותקן בכתובת הזו; מנהל המערכת יכול לקבל אותה בשמך בכלי הניהול.' },
    en: { title: 'Team invitation', body: 'The invitation is accepted by signing in to the dashboard with the email it was sent to. The dashboard is not installed at this address yet; the administrator can accept it for you with the admin tool.' },
    call: null,
  },
} as const;

/** The fallback page of an owner link, or null when the path is not one. */
export function ownerPage(path: string): HttpResponse | null {
  const m = OWNER_ROUTE.exec(path);
  if (!m) return null;
  const kind = m[1] as keyof typeof TEXT;
  const t = TEXT[kind];
  let id = '';
  try {
    id = decodeURIComponent(m[2]);
  } catch {
    return null;
  }
  // An invite's token is a secret: the page never repeats it.
  const call = t.call && /^[A-Za-z0-9_-]{1,128}$/.test(id) ? t.call(id) : null;
  const code = call ? html`<p><code dir="ltr">${call}</code></p>` : '';
  return page(
    200,
    'he',
    t.he.title,
    null,
    html`<section class="card"><h1>${t.he.title}</h1><p class="muted">${t.he.body}</p>${code}</section><section class="card" lang="en" dir="ltr"><h2>${t.en.title}</h2><p class="muted">${t.en.body}</p>${code}</section>`,
  );
}
