// Vitest reporter that ends every run with the plain line CI reads: `N passed, N failed` (skipped
// tests, if any, are counted on the line before it, so the last line keeps its exact shape).
// A test file that fails to load and an unhandled error each count as one failure, so a broken
// suite can never report "0 failed".
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[], unhandledErrors: readonly unknown[]): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      let moduleFailures = 0;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') moduleFailures += 1;
        else skipped += 1;
      }
      if (moduleFailures === 0 && testModule.state() === 'failed') moduleFailures = 1;
      failed += moduleFailures;
    }
    const skippedLine = skipped > 0 ? `${skipped} skipped\n` : '';
    process.stdout.write(`\n${skippedLine}${passed} passed, ${failed} failed\n`);
  }
}
