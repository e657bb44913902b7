// Preloaded by `npm start` (node --import): Node's compile cache keeps each module's compiled code, and for our
// TypeScript the type-stripped source, across runs (in the OS temp directory, or NODE_COMPILE_CACHE). A start after
// the first skips stripping and compiling what did not change (issue 23: a fresh npm start's first whoami).
import { enableCompileCache } from 'node:module';

enableCompileCache();
