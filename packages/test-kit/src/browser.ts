// Headless Chromium for the browser tests (playwright-core): where the binary is, the requirement
// that skips a suite without it (a failure under CI), the one way a suite launches it, and the
// screenshots docs/ shows: copied into docs/images/ when asked (UPDATE_SCREENSHOTS=1 or
// EVALS_UPDATE_SCREENSHOTS=1), and in every run required there (a missing one fails the test).
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

import { REPO_ROOT } from './repo.ts';
import { needs } from './requirement.ts';

import type { Browser } from 'playwright-core';

/** The Chromium binary (CHROMIUM_PATH, else the system's). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** What a run without it says is missing and how to get it. */
export const CHROMIUM_MISSING = `Chromium not found at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`;

/** Whether this run copies the screenshots it takes into docs/images/. */
export const UPDATE_SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' || process.env.EVALS_UPDATE_SCREENSHOTS === '1';

/**
 * Call at the top level of a browser test file: whether Chromium is there, for
 * `describe.skipIf(!HAVE_CHROMIUM)`; `skips` says what is skipped without it.
 */
export function needsChromium(testFile: string, skips: string): boolean {
  return needs({ testFile, skips, present: existsSync(CHROMIUM), missing: CHROMIUM_MISSING });
}

/** A suite's `(skipped: …)` title suffix, empty when Chromium is there. */
export const skippedSuffix = (present: boolean): string => (present ? '' : ` (skipped: ${CHROMIUM_MISSING})`);

/** Headless Chromium, sandboxless and without background networking (no request but the page's own). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** The first bytes of every PNG file. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Whether a file is there and starts as a PNG does (its pixels are never compared: fonts differ between machines). */
function isPng(path: string): boolean {
  if (!existsSync(path)) return false;
  const head = readFileSync(path).subarray(0, PNG_SIGNATURE.length);
  return head.equals(PNG_SIGNATURE);
}

/**
 * The screenshots a browser test takes for docs/: each named one must be committed in `images` (a
 * PNG there); with `update`, each must have been taken (a PNG in `shots`) and is copied there
 * first. Throws, naming every one missing and what to run, so a doc's screenshot that was never
 * regenerated or committed fails the test; pixels are never compared (fonts differ between
 * machines), so a re-render on another machine passes.
 */
export function checkScreenshots(options: {
  readonly shots: string;
  readonly images: string;
  readonly names: readonly string[];
  readonly update: boolean;
}): void {
  const { shots, images, names, update } = options;
  const notTaken = names.filter((name) => !isPng(join(shots, name)));
  if (update) {
    mkdirSync(images, { recursive: true });
    for (const name of names)
      if (!notTaken.includes(name)) copyFileSync(join(shots, name), join(images, name));
  }
  const notCommitted = names.filter((name) => !isPng(join(images, name)));
  // Without update a screenshot not taken (a run of one test, -t) is no problem: the committed one stands.
  const problems = [
    ...(update ? notTaken : []).map(
      (name) => `${name} was not taken by this run (no PNG in ${shots}), so not updated`,
    ),
    ...notCommitted.map(
      (name) =>
        `docs/images/${name} is missing or not a PNG: run this browser test with UPDATE_SCREENSHOTS=1 and commit docs/images/`,
    ),
  ];
  if (problems.length > 0) throw new Error(`screenshots for docs/:\n${problems.join('\n')}`);
}

/**
 * The screenshots a browser test takes for docs/images/: with UPDATE_SCREENSHOTS copied there; in
 * every run each must have been taken and be committed there (checkScreenshots), or this throws.
 */
export function keepScreenshots(shots: string, names: readonly string[]): void {
  checkScreenshots({ shots, images: join(REPO_ROOT, 'docs/images'), names, update: UPDATE_SCREENSHOTS });
}
