import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { emailText, id, input, LIMITS, text } from '../../core/schema.ts';
import { invalid } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { normalizeEmail, normalizePhone } from '../../domain/contacts.ts';
import { suggestionsPath, type SuggestionRecord } from '../../domain/invoices/issuers.ts';
import { SUPPLIER_KINDS, suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { assignSuggestionInvoices, MAX_SUGGESTION_IDS } from '../../domain/invoices/software.ts';

// A contact the AI read off an invoice may be garbage; it then counts as missing rather than failing the call.
const readable = (normalize: () => string): string | null => {
  try {
    return normalize();
  } catch {
    return null;
  }
};

type Outcome =
  | { kind: 'created'; key: string; name: string; existing: boolean }
  | { kind: 'notFound' }
  | { kind: 'skipped'; reason: string };

const output = z.object({
  created: z.array(z.object({ id: z.string(), supplierKey: z.string(), existing: z.boolean(), assigned: z.int().min(0) })),
  needsContact: z.array(z.string()),
  notFound: z.array(z.string()),
  skipped: z.array(z.object({ id: z.string(), reason: z.string() })),
});

const SOFTWARE_REASON = 'it is in the software list; move it back with softwareToSupplier first';

export default defineOperation({
  name: 'supplierSuggestionsCreate',
  group: 'suppliers',
  summary: 'Turn AI supplier suggestions into suppliers',
  description:
    'Make suppliers of suggestions. The key is the phone (else the email) from `contact` or, failing that, from the suggestion; a suggestion ' +
    'with neither is returned in needsContact and nothing is created for it. An existing supplier with that key is reused. The ' +
    "suggestion's invoices are assigned to the supplier. Result: created [{id, supplierKey, existing, assigned}], needsContact, notFound, skipped.",
  flags: { idempotent: true },
  input: input({
    ids: z.array(id()).min(1).max(MAX_SUGGESTION_IDS).describe('Suggestion ids to turn into suppliers.'),
    contact: z.record(id(), z.strictObject({ phone: text(40).optional().describe('Supplier phone, any common format (normalized).'), email: emailText().optional().describe('Supplier email address.') })).optional().describe('Phone or email per suggestion id, for suggestions that have neither.'),
    kind: z.enum(SUPPLIER_KINDS).default('supplier').describe('supplier (default) or freelancer.'),
  }),
  output,
  async run({ ids: rawIds, contact = {}, kind }, ctx) {
    const { businessId } = ctx.caller;
    const ids = [...new Set(rawIds)];
    // Every given contact is checked before anything is written.
    const given = new Map<string, { phone: string | null; email: string | null }>();
    for (const [sid, c] of Object.entries(contact)) {
      if (!ids.includes(sid)) throw invalid(`contact.${sid}`, 'is not one of ids', { reason: 'notListed', params: { value: sid } });
      given.set(sid, {
        phone: c.phone?.trim() ? normalizePhone(c.phone, `contact.${sid}.phone`) : null,
        email: c.email?.trim() ? normalizeEmail(c.email, `contact.${sid}.email`) : null,
      });
    }
    const at = iso(ctx.clock.now());
    const found = await ctx.store.getAll(ids.map((sid) => suggestionsPath(businessId, sid)));
    const out: z.output<typeof output> = { created: [], needsContact: [], notFound: [], skipped: [] };

    for (const [i, sid] of ids.entries()) {
      const pre = found[i]?.data as SuggestionRecord | undefined;
      if (!pre) {
        out.notFound.push(sid);
        continue;
      }
      if (pre.status === 'software') {
        out.skipped.push({ id: sid, reason: SOFTWARE_REASON });
        continue;
      }
      let phone: string | null = null;
      let email: string | null = null;
      let key: string;
      if (pre.status === 'created' && pre.supplierKey) {
        key = pre.supplierKey; // again: finish assigning, e.g. after an interrupted call
      } else {
        phone = given.get(sid)?.phone ?? (pre.phone ? readable(() => normalizePhone(pre.phone!, 'phone')) : null);
        email = given.get(sid)?.email ?? (pre.email ? readable(() => normalizeEmail(pre.email!, 'email')) : null);
        if (!phone && !email) {
          out.needsContact.push(sid);
          continue;
        }
        key = (phone ?? email)!;
      }
      const sgPath = suggestionsPath(businessId, sid);
      const supPath = suppliersPath(businessId, key);
      const outcome = await ctx.store.runTransaction(async (tx): Promise<Outcome> => {
        const [sg, sup] = await tx.getAll([sgPath, supPath]);
        if (!sg) return { kind: 'notFound' };
        const cur = sg.data as unknown as SuggestionRecord;
        if (cur.status === 'software') return { kind: 'skipped', reason: SOFTWARE_REASON };
        const supplier = sup?.data as SupplierRecord | undefined;
        if (cur.status === 'created') {
          if (cur.supplierKey !== key || !supplier) return { kind: 'skipped', reason: `it was made supplier ${cur.supplierKey ?? ''} by another request`.trim() };
          return { kind: 'created', key, name: supplier.name, existing: true };
        }
        if (!supplier) {
          const record: SupplierRecord = {
            key,
            name: cur.name || key,
            phone,
            email,
            kind,
            manual: true,
            paymentCount: 0,
            lastPaymentAt: null,
            // The VAT id is what later invoices of this issuer carry.
            card: cur.vatId ? { companyId: cur.vatId } : {},
            supplierSide: null,
            createdAt: at,
            updatedAt: at,
          };
          tx.set(supPath, { ...record });
        }
        tx.update(sgPath, { status: 'created', supplierKey: key, updatedAt: at });
        return { kind: 'created', key, name: supplier?.name || cur.name || key, existing: !!supplier };
      });
      if (outcome.kind === 'notFound') out.notFound.push(sid);
      else if (outcome.kind === 'skipped') out.skipped.push({ id: sid, reason: outcome.reason });
      else {
        const assigned = await assignSuggestionInvoices(ctx.store, businessId, sid, { key: outcome.key, name: outcome.name }, at);
        out.created.push({ id: sid, supplierKey: outcome.key, existing: outcome.existing, assigned });
      }
    }
    return out;
  },
  activity: (_input, r) => ({
    params: { count: r.created.length, assigned: r.created.reduce((n, c) => n + c.assigned, 0), needsContact: r.needsContact.length },
    targetIds: r.created.flatMap((c) => [c.id, c.supplierKey]),
    summary:
      `${r.created.length} supplier(s) from suggestions (${r.created.filter((c) => c.existing).length} existing), ` +
      `${r.created.reduce((n, c) => n + c.assigned, 0)} invoice(s) assigned; ${r.needsContact.length} need a contact, ` +
      `${r.notFound.length} not found, ${r.skipped.length} skipped`,
  }),
});
