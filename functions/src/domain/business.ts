import type { ApprovalPolicy } from './payments/approvalTypes.ts';
import { z } from 'zod';
import { MAX_AMOUNT_AGOROT } from './money.ts';
import { email, text, multilineText, LIMITS } from '../core/schema.ts';
import type { DocStore } from '../ports/store.ts';
import type { IdSource } from '../core/ids.ts';
import { memberPath, type MemberRecord } from '../core/auth.ts';

/** Paths handed out before, by id: the same string again keeps its hash, so the document cache finds it without rehashing (every API call). */
const businessPaths = new Map<string, string>();
export function businessPath(businessId: string): string {
  let p = businessPaths.get(businessId);
  if (p === undefined) {
    if (businessPaths.size >= 4096) businessPaths.clear();
    p = `businesses/${businessId}`;
    businessPaths.set(businessId, p);
  }
  return p;
}

export const APPS = ['incoming', 'invoices', 'payments', 'software', 'statements', 'employees', 'documents', 'accountant'] as const;
export type App = (typeof APPS)[number];
/** An app that cannot be on unless another one is. */
export const APP_REQUIRES: Partial<Record<App, App>> = { payments: 'invoices' };

/** The Business fields of spec §2, each optional, as updateBusiness takes them. */
/** Every app as a named boolean (getBusiness, setBusinessApp): eight properties, not an open record. */
export const appsSchema = z.object(Object.fromEntries(APPS.map((a) => [a, z.boolean()])) as Record<App, z.ZodBoolean>);

export const profileShape = {
  name: text().describe("Owner's name (Hebrew)."),
  nameEn: text().describe("Owner's name (English)."),
  businessName: text().describe('Official business name (Hebrew).'),
  businessNameEn: text().describe('Official business name (English).'),
  companyId: text(20).describe('Company or dealer registration number.'),
  businessType: z.enum(['', 'patur', 'murshe', 'company']).describe('"", patur (exempt dealer), murshe (licensed dealer) or company.'),
  street: text().describe('Street address.'),
  city: text().describe('City.'),
  zip: text(20).describe('Postal code.'),
  notifyUploadWhatsApp: z.boolean().describe('WhatsApp the owner when a supplier finished and a payment is ready.'),
  notifyUploadEmail: z.boolean().describe('Email the owner when a supplier finished and a payment is ready.'),
  notifyLateInvoiceWhatsApp: z.boolean().describe('WhatsApp the owner when an invoice is added to an already paid payment.'),
  notifyLateInvoiceEmail: z.boolean().describe('Email the owner when an invoice is added to an already paid payment.'),
  publicListing: z.boolean().describe('Show the business in the public directory.'),
  publicListingBy: z.enum(['name', 'phone', 'both']).describe('What the directory shows: name, phone or both.'),
  /** Beyond the spec: standing-link filings start `ready` only when this is on (docs/decisions.md). */
  publicFilingsReady: z.boolean().describe('true: requests filed through the standing link start ready; false (default): they wait for review.'),
  priceList: z
    .array(z.strictObject({ title: text().min(1).describe('Item title.'), amountAgorot: z.int().min(0).max(MAX_AMOUNT_AGOROT).describe('Price in agorot.') }))
    .max(200)
    .describe('Price list shown on the standing link, up to 200 items; replaces the whole list.'),
  docBankName: text().describe('Bank name, for AI-filled forms.'),
  docBankCode: text(10).describe('Bank code, for AI-filled forms.'),
  docBankBranch: text(10).describe('Branch number, for AI-filled forms.'),
  docBankAccount: text(30).describe('Account number, for AI-filled forms.'),
  docBankBeneficiary: text().describe('Account holder, for AI-filled forms.'),
  docCustomFields: z
    .array(z.strictObject({ label: text().describe('Field label as forms word it.'), value: multilineText(LIMITS.text).describe('Value to fill in.') }))
    .max(100)
    .describe('Extra label/value pairs the AI may use to fill forms; replaces the whole list.'),
  myName: text().describe('Your own name (Hebrew), for forms and signatures.'),
  myNameEn: text().describe('Your own name (English).'),
  masavInstitutionId: z.string().max(8).regex(/^(\d{8})?$/, 'expected 8 digits, or "" to clear').describe('MASAV institution ID.'),
  masavSenderId: z.string().max(5).regex(/^(\d{5})?$/, 'expected 5 digits, or "" to clear').describe('MASAV sender ID.'),
  /** Issue 39: supplier reminders N days after sending (distinct, ascending; updateBusiness checks the order); [] = off. */
  reminderDays: z.array(z.int().min(1).max(60)).max(5).describe('Remind days after send ([] off).'),
  notifyDueEmail: z.boolean().describe('Email admins a due digest at 07:00.'),
};

export const profileSchema = z.object(profileShape);
export type Profile = z.output<typeof profileSchema>;

export const DEFAULT_PROFILE: Profile = {
  name: '',
  nameEn: '',
  businessName: '',
  businessNameEn: '',
  companyId: '',
  businessType: '',
  street: '',
  city: '',
  zip: '',
  notifyUploadWhatsApp: true,
  notifyUploadEmail: true,
  notifyLateInvoiceWhatsApp: false,
  notifyLateInvoiceEmail: true,
  publicListing: false,
  publicListingBy: 'name',
  publicFilingsReady: false,
  priceList: [],
  docBankName: '',
  docBankCode: '',
  docBankBranch: '',
  docBankAccount: '',
  docBankBeneficiary: '',
  docCustomFields: [],
  myName: '',
  myNameEn: '',
  masavInstitutionId: '',
  masavSenderId: '',
  reminderDays: [3, 7],
  notifyDueEmail: true,
};

export interface BusinessRecord extends Profile {
  id: string;
  ownerUserId: string;
  ownerEmail: string;
  apps: Record<App, boolean>;
  publicSlug: string | null;
  /** Signature and stamp images for forms (updateBusiness docSignaturePng/docStampPng), kept as files, not in this doc. */
  docSignatureFileId?: string | null;
  docStampFileId?: string | null;
  /** Which payments need an admin's approval (approvalPolicySet); absent = off. */
  approvalPolicy?: ApprovalPolicy;
  createdAt: string;
  updatedAt: string;
}

export const profileOf = (data: Record<string, unknown>): Profile => {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_PROFILE)) out[key] = data[key] ?? DEFAULT_PROFILE[key as keyof Profile];
  return out as Profile;
};

export const usersPath = (userId: string) => `users/${userId}`;

/** Creates a business with its owner as the first admin (admin CLI and tests; sign-up is not part of the API). */
export async function createBusiness(store: DocStore, ids: IdSource, input: { name: string; email: string }, now: number) {
  const ownerEmail = email().parse(input.email);
  const businessId = ids();
  const userId = ids();
  const at = new Date(now).toISOString();
  const business: BusinessRecord = {
    ...DEFAULT_PROFILE,
    businessName: input.name,
    id: businessId,
    ownerUserId: userId,
    ownerEmail,
    apps: Object.fromEntries(APPS.map((a) => [a, true])) as Record<App, boolean>,
    publicSlug: null,
    createdAt: at,
    updatedAt: at,
  };
  const member: MemberRecord = { userId, email: ownerEmail, role: 'admin', joinedAt: at };
  const batch = store.batch();
  batch.create(businessPath(businessId), { ...business });
  batch.set(usersPath(userId), { userId, email: ownerEmail, emailVerified: true, createdAt: at });
  batch.create(memberPath(businessId, userId), { ...member });
  await batch.commit();
  return { businessId, userId, email: ownerEmail };
}
