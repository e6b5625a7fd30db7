// A package that changes what the probe observes with cannot steer its own qualification. Every
// variant below leaks a test double from its root entry point (which root-exports refuses) and then
// tries to hide it: by patching a built-in (Object.keys, Reflect.ownKeys, Object.getOwnPropertyNames,
// JSON.stringify, Array.prototype.includes, Function.prototype.toString), by rebinding a global
// (globalThis.Object, globalThis.globalThis), by replacing process.stdout.write, or by writing a report of its own on
// stdout and exiting. Each is refused with a coded reason; a patch attempted and swallowed changes
// nothing, so the leak is still found.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { qualifyRelease } from '../src/qualify.ts';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { check, codes, createScratch } from './support/harness.ts';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';

import type { QualificationRecord } from '../src/record.ts';
import type { Scratch } from './support/harness.ts';

const HIDE = "(names) => names.filter((name) => name !== 'DeterministicHarnessDriver')";

/** A schema-valid probe report the package forges (it cannot know the nonce). */
const FORGED = {
  schema: 'paperclip-evals/qualification-probe/v1',
  nonce: '0'.repeat(64),
  node: process.version,
  intrinsicsFrozen: true,
  tampered: [],
  entryPoints: Object.fromEntries(
    ['.', './evals', './testing'].map((entry) => [
      entry,
      { loaded: false, error: { name: 'Error', code: null, message: 'forged' } },
    ]),
  ),
  evals: null,
  conformance: null,
  undeclared: [],
  unhandledRejections: [],
};

/** Code prepended to the package's root entry point, and the codes consumer-probe must fail with. */
const TAMPERS: Record<string, { readonly code: string; readonly issues: readonly string[] }> = {
  objectKeys: {
    code: `const keys = Object.keys;\nObject.keys = (value) => (${HIDE})(keys(value));`,
    issues: ['package_tampers_with_builtins'],
  },
  reflectOwnKeys: {
    code: `const ownKeys = Reflect.ownKeys;\nReflect.ownKeys = (value) => (${HIDE})(ownKeys(value));`,
    issues: ['package_tampers_with_builtins'],
  },
  getOwnPropertyNames: {
    code: `const names = Object.getOwnPropertyNames;\nObject.getOwnPropertyNames = (value) => (${HIDE})(names(value));`,
    issues: ['package_tampers_with_builtins'],
  },
  jsonStringify: {
    code: "const stringify = JSON.stringify;\nJSON.stringify = (...args) => stringify(...args).replaceAll('root_export', 'fine');",
    issues: ['package_tampers_with_builtins'],
  },
  arrayIncludes: {
    code: 'Array.prototype.includes = function () { return false; };',
    issues: ['package_tampers_with_builtins'],
  },
  functionToString: {
    code: "Function.prototype.toString = function () { return 'function () { [native code] }'; };",
    issues: ['package_tampers_with_builtins'],
  },
  globalObjectRebound: {
    code: `const RealObject = Object;\nglobalThis.Object = new Proxy(RealObject, { get: (target, key) => key === 'keys' ? (value) => (${HIDE})(RealObject.keys(value)) : target[key] });`,
    issues: ['package_tampers_with_builtins'],
  },
  globalThisRebound: {
    code: 'globalThis.globalThis = new Proxy(globalThis, {});',
    issues: ['package_tampers_with_builtins'],
  },
  stdoutWrite: {
    code: "const write = process.stdout.write.bind(process.stdout);\nprocess.stdout.write = (chunk, ...rest) => write(String(chunk).replaceAll('DeterministicHarnessDriver', 'Fine'), ...rest);",
    issues: ['package_tampers_with_builtins'],
  },
  forgedReport: {
    code: `import { writeSync } from 'node:fs';\nwriteSync(1, ${JSON.stringify(JSON.stringify(FORGED))} + '\\n');\nprocess.exit(0);`,
    issues: ['probe_report_forged'],
  },
};

let scratch: Scratch;
const records = new Map<string, QualificationRecord>();

beforeAll(async () => {
  scratch = await createScratch('tampering');
  const variants = {
    ...TAMPERS,
    swallowedAttempt: { code: 'try { Object.keys = () => []; } catch {}', issues: [] },
  };
  await Promise.all(
    Object.entries(variants).map(async ([name, tamper]) => {
      const release = await buildFakeRelease(join(scratch.releases, name), {
        leakTestDouble: true,
        editFiles: (files) => {
          const root = files['package/dist/index.js']!;
          // Imports first (ESM hoists them anyway), then the tampering, then the module itself.
          files['package/dist/index.js'] = `${tamper.code}\n${root}`;
        },
      });
      records.set(
        name,
        await qualifyRelease({ releaseDir: release.dir, tempDir: scratch.work, pnpm: testPnpm() }),
      );
    }),
  );
}, 180_000);

afterAll(async () => {
  await scratch.remove();
});

describe.each(Object.entries(TAMPERS))('when the package tampers: %s', (name, tamper) => {
  it(`is refused: consumer-probe fails with ${tamper.issues.join(', ')}`, () => {
    const record = records.get(name)!;
    expect(record.qualified).toBe(false);
    expect(check(record, 'consumer-probe').status).toBe('fail');
    expect(new Set(codes(record, 'consumer-probe'))).toEqual(new Set(tamper.issues));
  });
});

describe('when the package tries a patch and swallows the TypeError', () => {
  it('changes nothing: the probe still sees the leaked test double', () => {
    const record = records.get('swallowedAttempt')!;
    expect(check(record, 'consumer-probe').status).toBe('pass');
    expect(codes(record, 'root-exports')).toContain('root_export_test_double');
    expect(record.qualified).toBe(false);
  });
});

it('leaves no work directory behind', async () => {
  expect(await scratch.leftovers()).toEqual([]);
});
