/**
 * Every link to the owner's screens is built here, so messages point where the dashboard serves them
 * (`{DASHBOARD_URL}/payments/<id>`, `/invoices/<id>`, `/invite/<token>`). Until a dashboard answers at
 * DASHBOARD_URL, the service itself answers these paths with an HTML page (surfaces/pages/ownerPages.ts).
 */
export interface OwnerLinks {
  payment(paymentId: string): string;
  invoice(docId: string): string;
  invite(token: string): string;
}

export function ownerLinks(dashboardUrl: string): OwnerLinks {
  const base = dashboardUrl.replace(/\/+$/, '');
  return {
    payment: (id) => `${base}/payments/${encodeURIComponent(id)}`,
    invoice: (id) => `${base}/invoices/${encodeURIComponent(id)}`,
    invite: (token) => `${base}/invite/${encodeURIComponent(token)}`,
  };
}

/** The owner routes, as paths under the dashboard's base: what each link above opens. */
export const OWNER_ROUTE = /^\/(payments|invoices|invite)\/([^/]+)\/?$/;
