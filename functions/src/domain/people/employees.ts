import { z } from 'zod';
import { normalizeEmail, normalizePhone } from '../contacts.ts';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { freeTextProblem } from '../../core/text.ts';
import { emailOrEmpty, LIMITS, text } from '../../core/schema.ts';

/** Employees of a business (spec §2 "Employee"): typed in, or imported from the chat tool. */

export const EMPLOYEE_STATUSES = ['active', 'inactive'] as const;
export const EMPLOYEE_SOURCES = ['manual', 'chat'] as const;
/** Employees a business may keep; creation and import beyond it answer resource-exhausted. */
export const MAX_EMPLOYEES = 2000;

export const employeesPath = (businessId: string) => `businesses/${businessId}/employees`;
export const employeePath = (businessId: string, id: string) => `${employeesPath(businessId)}/${id}`;
/** An imported member's employee id is derived from the workspace and the member, so re-imports never duplicate. */
export const chatEmployeeId = (teamId: string, chatUserId: string) => `chat_${teamId}_${chatUserId}`;

export interface EmployeeRecord {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  title: string | null;
  status: (typeof EMPLOYEE_STATUSES)[number];
  source: (typeof EMPLOYEE_SOURCES)[number];
  chatUserId: string | null;
  chatTeamId: string | null;
  createdAt: string;
  updatedAt: string;
}

export const employeeSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  title: z.string().nullable(),
  status: z.enum(EMPLOYEE_STATUSES),
  source: z.enum(EMPLOYEE_SOURCES),
  chatUserId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type EmployeeView = z.infer<typeof employeeSchema>;

export const employeeView = (r: EmployeeRecord): EmployeeView => ({
  id: r.id,
  name: r.name,
  email: r.email,
  phone: r.phone,
  title: r.title,
  status: r.status,
  source: r.source,
  chatUserId: r.chatUserId,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** The caller's contact fields normalised: empty means none; invalid ones are refused naming the field. */
export function normalizeContact(input: { email?: string; phone?: string; title?: string }): { email: string | null; phone: string | null; title: string | null } {
  return {
    email: input.email?.trim() ? normalizeEmail(input.email, 'email') : null,
    phone: input.phone?.trim() ? normalizePhone(input.phone, 'phone') : null,
    title: input.title?.trim() || null,
  };
}

const clean = (s: string | undefined, max: number): string | null => {
  const t = (s ?? '').replace(/[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g, ' ').trim().slice(0, max);
  return t && !freeTextProblem(t, false) ? t : null;
};

/**
 * An employee's fields from a chat profile. The workspace is not the caller: whatever it holds is
 * cleaned rather than refused (a phone that does not parse is left out, an email lower-cased).
 */
export function fromChatProfile(m: { name?: string; email?: string; phone?: string; title?: string }) {
  const name = clean(m.name, 200) ?? 'Unnamed';
  const rawEmail = clean(m.email, 254);
  const email = rawEmail && z.email().safeParse(rawEmail.toLowerCase()).success ? rawEmail.toLowerCase() : null;
  const parsed = m.phone ? parsePhoneNumberFromString(m.phone.trim(), 'IL') : undefined;
  const phone = parsed && parsed.isValid() ? parsed.number : null;
  return { name, email, phone, title: clean(m.title, 200) };
}

/** The input fields employeeCreate and employeeUpdate share (free text follows core/text.ts). */
export const employeeInputFields = {
  name: text(LIMITS.shortText).trim().min(1).describe('Full name (required).'),
  email: emailOrEmpty().optional().describe('Email; stored lower-cased. Empty or left out: none.'),
  phone: text(40).optional().describe('Phone, Israeli forms or E.164; stored as E.164. Empty or left out: none.'),
  title: text(LIMITS.shortText).optional().describe('Job title. Empty or left out: none.'),
};
