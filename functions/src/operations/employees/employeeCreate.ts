import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { ApiError } from '../../core/errors.ts';
import { input } from '../../core/schema.ts';
import { EMPLOYEE_STATUSES, employeeInputFields, employeePath, employeeSchema, employeesPath, employeeView, MAX_EMPLOYEES, normalizeContact, type EmployeeRecord } from '../../domain/people/employees.ts';

export default defineOperation({
  name: 'employeeCreate',
  group: 'employees',
  summary: 'Add an employee by hand',
  description: `Add an employee by hand (source manual). Name is required; the email is lower-cased and the phone stored as E.164 (Israeli forms accepted). Status defaults to active. A business keeps at most ${MAX_EMPLOYEES} employees.`,
  flags: {},
  input: input({
    ...employeeInputFields,
    status: z.enum(EMPLOYEE_STATUSES).default('active').describe('active (default) or inactive.'),
  }),
  output: employeeSchema,
  async run({ name, status, ...rest }, ctx) {
    const contact = normalizeContact(rest);
    const { businessId } = ctx.caller;
    const count = await ctx.store.count({ collection: employeesPath(businessId) });
    if (count >= MAX_EMPLOYEES) throw new ApiError('resource-exhausted', `a business keeps at most ${MAX_EMPLOYEES} employees; delete some first`, { reason: 'tooManyEmployees', params: { max: MAX_EMPLOYEES } });
    const at = new Date(ctx.clock.now()).toISOString();
    const id = ctx.ids();
    const record: EmployeeRecord = { id, name, ...contact, status, source: 'manual', chatUserId: null, chatTeamId: null, createdAt: at, updatedAt: at };
    await ctx.store.create(employeePath(businessId, id), { ...record });
    return employeeView(record);
  },
  activity: (_input, result) => ({ params: { name: result.name }, targetIds: [result.id], summary: `added employee ${result.name}` }),
});
