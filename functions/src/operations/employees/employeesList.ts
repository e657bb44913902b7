import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { employeeSchema, employeesPath, employeeView, MAX_EMPLOYEES, type EmployeeRecord } from '../../domain/people/employees.ts';

export default defineOperation({
  name: 'employeesList',
  group: 'employees',
  summary: 'The business\'s employees, by name',
  description: `Every employee (at most ${MAX_EMPLOYEES}), sorted by name: name, email, phone (E.164), title, status (active or inactive) and source (manual, or chat when imported from Slack).`,
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ items: z.array(employeeSchema), total: z.int() }),
  async run(_input, ctx) {
    const docs = await ctx.store.query({ collection: employeesPath(ctx.caller.businessId), limit: MAX_EMPLOYEES });
    const items = docs.map((d) => employeeView(d.data as unknown as EmployeeRecord)).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return { items, total: items.length };
  },
});
