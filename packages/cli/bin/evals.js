#!/usr/bin/env node
// The `evals` binary: three lines; everything lives in ../dist/main.js (built by `pnpm run build`).
import { main } from '../dist/main.js';
await main(process.argv);
