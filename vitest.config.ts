// Test runner configuration: every package's test/ folder, plus the summary line CI reads.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'scripts/**/*.test.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
