import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { notFound } from '../../core/errors.ts';
import { id, input } from '../../core/schema.ts';
import { EMPLOYEE_STATUSES, employeeInputFields, employeePath, employeeSchema, employeeView, normalizeContact, type EmployeeRecord } from '../../domain/people/employees.ts';

export default defineOperation({
  name: 'employeeUpdate',
  group: 'employees',
  summary: 'Replace an employee\'s record (send every field)',
  description:
    'Replaces the whole record, as the spec says: send every field. A field left out is cleared (email, phone, title become empty; status becomes active). Source and the chat link stay. Email is lower-cased, phone stored as E.164.',
  flags: { idempotent: true },
  input: input({
    id: id().describe('Employee id (from employeesList).'),
    ...employeeInputFields,
    status: z.enum(EMPLOYEE_STATUSES).default('active').describe('active or inactive; left out: active.'),
  }),
  output: employeeSchema,
  async run({ id: employeeId, name, status, ...rest }, ctx) {
    const contact = normalizeContact(rest);
    const path = employeePath(ctx.caller.businessId, employeeId);
    const at = new Date(ctx.clock.now()).toISOString();
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound(`id: employee ${employeeId}`, 'employee');
      const prev = doc.data as unknown as EmployeeRecord;
      const record: EmployeeRecord = { ...prev, name, ...contact, status, updatedAt: at };
      tx.set(path, { ...record });
      return employeeView(record);
    });
  },
  activity: (_input, result) => ({ params: { name: result.name }, targetIds: [result.id], summary: `updated employee ${result.name}` }),
});
