import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { notFound } from '../../core/errors.ts';
import { id, input } from '../../core/schema.ts';
import { employeePath, type EmployeeRecord } from '../../domain/people/employees.ts';

export default defineOperation({
  name: 'employeeDelete',
  group: 'employees',
  summary: 'Delete an employee',
  description: 'Deletes the employee record. An employee imported from Slack can be imported again later.',
  flags: { dangerous: true },
  input: input({ id: id().describe('Employee id (from employeesList).') }),
  output: z.object({ id: z.string(), name: z.string(), deleted: z.literal(true) }),
  async run({ id: employeeId }, ctx) {
    const path = employeePath(ctx.caller.businessId, employeeId);
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound(`id: employee ${employeeId}`, 'employee');
      tx.delete(path);
      return { id: employeeId, name: (doc.data as unknown as EmployeeRecord).name, deleted: true as const };
    });
  },
  activity: (_input, result) => ({ params: { name: result.name }, targetIds: [result.id], summary: `deleted employee ${result.name}` }),
});
