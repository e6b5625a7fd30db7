// The three documents `evals negotiate` reads, for the example in docs/runnerd-and-negotiation.md
// (and the README): the reference runner's build metadata (@paperclipai/paperclip-runner/evals'
// PAPERCLIP_RUNNER_BUILD_METADATA), its semantic catalog (CAPABILITY_SEMANTIC_TOOL_CATALOG), and
// Evals' consumer requirements completed for that package as qualification completes them (its
// version and its deterministic driver's descriptor). `pnpm run examples` writes them to
// examples/negotiate/; they are committed so a fresh clone can run the example, and
// scripts/negotiate-example.test.ts regenerates them and fails on any difference.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  CAPABILITY_SEMANTIC_TOOL_CATALOG,
  PAPERCLIP_RUNNER_BUILD_METADATA,
} from '../packages/reference-runner/dist/evals/index.js';
import { DeterministicHarnessDriver } from '../packages/reference-runner/dist/testing.js';
import {
  completeConsumerRequirements,
  loadEvalsConsumerRequirements,
} from '../packages/qualification/dist/index.js';

/** Where the documents are committed, from the repository root. */
export const NEGOTIATE_EXAMPLE_DIR = 'examples/negotiate';

/** Each document's file name and its text (two-space JSON and a final newline, as prettier keeps it). */
export async function negotiateExampleDocuments(): Promise<Record<string, string>> {
  const text = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  // The driver's descriptor as JSON, the form qualification reads it in (the conformance report).
  const { capabilities, ...descriptor } = await new DeterministicHarnessDriver().descriptor();
  const requirements = completeConsumerRequirements(loadEvalsConsumerRequirements(), {
    packageVersion: PAPERCLIP_RUNNER_BUILD_METADATA.package.version,
    descriptor: { ...descriptor, capabilities: { ...capabilities } },
  });
  return {
    'build-metadata.json': text(PAPERCLIP_RUNNER_BUILD_METADATA),
    'requirements.json': text(requirements),
    'semantic-catalog.json': text(CAPABILITY_SEMANTIC_TOOL_CATALOG),
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('../', import.meta.url));
  mkdirSync(join(root, NEGOTIATE_EXAMPLE_DIR), { recursive: true });
  const documents = await negotiateExampleDocuments();
  for (const [name, text] of Object.entries(documents))
    writeFileSync(join(root, NEGOTIATE_EXAMPLE_DIR, name), text);
  console.log(`wrote ${Object.keys(documents).join(', ')} to ${NEGOTIATE_EXAMPLE_DIR}/`);
}
