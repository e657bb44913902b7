/**
 * Builds the Cloud Functions entry (functions/package.json `main`): functions/lib/index.js, an esbuild bundle of
 * functions/src/index.ts and what it imports statically (firebase-functions, and the firebase-admin/auth that
 * `firebase-functions/https` loads at its top). One minified file loads in about a third of the time the same
 * code takes as ~350 separate CommonJS modules plus Node's TypeScript stripper starting (issue 23).
 * Every dynamic `import()` of our modules stays external, pointing at the TypeScript sources: the app still loads
 * on the first request or task, from functions/src (Node 24 strips types outside node_modules).
 * `node scripts/build-functions.ts`; the tests and the bench call buildFunctions(), which writes only on a change.
 */
import { build, type Plugin } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const ENTRY = join(ROOT, 'functions/src/index.ts');
export const OUTFILE = join(ROOT, 'functions/lib/index.js');

/** Our modules imported with `import()` from a bundled module of ours: left external, as a path from the output to the source. */
const lazyOwnModules: Plugin = {
  name: 'lazy-own-modules',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== 'dynamic-import' || args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
      const target = join(dirname(args.importer), args.path);
      return { path: relative(dirname(OUTFILE), target).split(sep).join('/'), external: true };
    });
  },
};

export interface Built {
  /** Whether functions/lib/index.js changed (false: it was already this build). */
  written: boolean;
  bytes: number;
  /** Our source files inside the bundle, relative to the repository. */
  ownBundled: string[];
  /** Our modules left to load on demand, as the bundle imports them. */
  lazy: string[];
}

export async function buildFunctions(): Promise<Built> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    outfile: OUTFILE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    // Library dynamic imports (gaxios' node-fetch, say) stay bundled: resolved from their importer, as Node would.
    plugins: [lazyOwnModules],
    // Bundled CommonJS calls require(), which ESM lacks.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const [out] = result.outputFiles;
  const inputs = Object.keys(result.metafile.inputs);
  const ownBundled = inputs.filter((p) => p.startsWith('functions/src/'));
  const lazy = Object.values(result.metafile.outputs)
    .flatMap((o) => o.imports)
    .filter((i) => i.kind === 'dynamic-import' && i.path.startsWith('../src/'))
    .map((i) => i.path);
  // A module both bundled and loaded lazily would run twice, with two copies of its state.
  const twice = lazy.filter((p) => ownBundled.includes(`functions/${p.slice(3)}`));
  if (twice.length) throw new Error(`bundled and also loaded lazily: ${twice.join(', ')}`);

  let written = false;
  let current: Buffer | undefined;
  try {
    current = readFileSync(OUTFILE);
  } catch {}
  if (!current?.equals(out.contents)) {
    mkdirSync(dirname(OUTFILE), { recursive: true });
    // Renamed into place: a process loading the entry meanwhile (the emulator, a parallel test) sees one whole file.
    const tmp = `${OUTFILE}.${process.pid}.tmp`;
    writeFileSync(tmp, out.contents);
    renameSync(tmp, OUTFILE);
    written = true;
  }
  return { written, bytes: out.contents.length, ownBundled, lazy };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const b = await buildFunctions();
  console.log(`${relative(ROOT, OUTFILE)}: ${Math.round(b.bytes / 1024)} KB${b.written ? '' : ' (unchanged)'}; ours bundled: ${b.ownBundled.join(', ')}; loaded on demand: ${b.lazy.length} modules`);
}
