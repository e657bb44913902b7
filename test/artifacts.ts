import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where a test keeps a screenshot: `test-artifacts/<group>/<name>` at the repository root (gitignored). */
export function artifactPath(group: string, name: string): string {
  const dir = fileURLToPath(new URL(`../test-artifacts/${group}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir + name.replace(/[^A-Za-z0-9._-]+/g, '-');
}
