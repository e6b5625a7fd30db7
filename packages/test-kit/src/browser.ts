// Headless Chromium for the browser tests (playwright-core): where the binary is, the requirement
// that skips a suite without it (a failure under CI), the one way a suite launches it, and the copy
// of a run's screenshots into docs/images/ when asked (UPDATE_SCREENSHOTS=1 or EVALS_UPDATE_SCREENSHOTS=1).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
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

/** With UPDATE_SCREENSHOTS, copies each named screenshot that `shots` holds into docs/images/. */
export function keepScreenshots(shots: string, names: readonly string[]): void {
  if (!UPDATE_SCREENSHOTS) return;
  const images = join(REPO_ROOT, 'docs/images');
  mkdirSync(images, { recursive: true });
  for (const name of names)
    if (existsSync(join(shots, name))) copyFileSync(join(shots, name), join(images, name));
}
