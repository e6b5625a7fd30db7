// Build step (after tsc): copies the HTML pages' real stylesheets and script (src/report/html/
// replay.css, report.css, report.js, clip.js) beside the compiled renderer (dist/report/html/), which reads them once and
// inlines them into every page (its CSP hashes the script it inlines). tsc copies no such files.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { writeOutputFile } from '@paperclip-evals/node';

const REPORT_ASSETS = ['replay.css', 'report.css', 'report.js', 'clip.js'];
const from = new URL('../src/report/html/', import.meta.url);
const to = new URL('../dist/report/html/', import.meta.url);

await mkdir(to, { recursive: true });
for (const name of REPORT_ASSETS) {
  const text = readFileSync(new URL(name, from), 'utf8');
  await writeOutputFile(fileURLToPath(new URL(name, to)), (write) => write(text));
}
