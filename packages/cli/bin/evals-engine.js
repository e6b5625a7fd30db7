#!/usr/bin/env node
// `evals-engine`: the checks engine as a bare executable, the way Attest SDKs launch theirs
// (found through ATTEST_ENGINE_PATH, started with only --log-level=<level>). Everything lives in
// ../dist/engine-main.js (built by `pnpm run build`).
import { engineMain } from '../dist/engine-main.js';
await engineMain(process.argv);
