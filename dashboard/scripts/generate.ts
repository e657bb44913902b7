import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GENERATED, generateApiFiles } from './apiTypes.ts';

const files = await generateApiFiles();
for (const [k, rel] of Object.entries(GENERATED)) {
  writeFileSync(fileURLToPath(new URL(`../${rel}`, import.meta.url)), files[k as keyof typeof GENERATED]);
  console.log(`wrote dashboard/${rel}`);
}
process.exit(0);
