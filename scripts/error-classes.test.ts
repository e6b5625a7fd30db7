// One error class per package (issue 16): every error class declared in `packages/*/src` — any class
// that extends a class named …Error, a subclass of the package's own error included — is listed
// here, and each Evals package has at most one: its coded error (a `code` union and `issues[]`;
// the CLI's is its UsageError (paperclip_cli_usage_invalid, paperclip_cli_input_unreadable), node throws contract's ContractError codes and the file system's own
// errors). Each coded error extends the contract's one base, CodedError (its `code`, `issues[]` and
// constructor), the one class the contract declares besides its own. A second class fails: fold it
// into the package's error as a code. The one exception is
// the reference runner, the App side walled off from Evals: its errors are upstream's App classes by
// upstream's names (docs/app-surface.md) and its eval-session bin's infrastructure failure; its
// list is pinned too, so a new one is a decision.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../packages/', import.meta.url));

/** Each package's error classes, by name (sorted). */
const ERROR_CLASSES: Readonly<Record<string, readonly string[]>> = {
  app: ['AppError'],
  campaign: ['CampaignError'],
  checks: ['ChecksError'],
  cli: ['UsageError'],
  contract: ['ContractError'],
  evalbook: ['EvalbookError'],
  node: [],
  policy: ['PolicyError'],
  qualification: ['QualificationError'],
};

/** The one base of the coded errors, declared by the contract beside its ContractError. */
const BASE = { pkg: 'contract', name: 'CodedError' } as const;

/** The packages whose one error is not a coded one: node throws the contract's and the file system's. */
const UNCODED = new Set(['node']);

/** The documented exception: upstream's App errors by upstream's names, and the eval-session bin's failure. */
const REFERENCE_RUNNER_CLASSES = [
  'EvalSessionInfrastructureError',
  'PaperclipNativeExecutionError',
  'PaperclipRunnerError',
  'PaperclipRunnerEvalCompatibilityError',
  'PaperclipRunnerdArtifactError',
];

/** The classes `source` declares that extend a class named …Error (Error, TypeError, a package's own). */
export function errorClassesIn(source: string): string[] {
  return [...source.matchAll(/\bclass\s+(\w+)\s+extends\s+(?:\w+\.)*\w*Error\b/g)].map((m) => m[1]!);
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.(?:[mc]?ts|[mc]?js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function sourceOf(pkg: string): string {
  return sourceFiles(join(PACKAGES, pkg, 'src'))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
}

function declaredIn(pkg: string): string[] {
  return errorClassesIn(sourceOf(pkg))
    .filter((name) => !(pkg === BASE.pkg && name === BASE.name))
    .sort();
}

/** The class `name` extends in `source` (its base's name without type arguments), or undefined. */
export function baseOf(source: string, name: string): string | undefined {
  return new RegExp(String.raw`\bclass\s+${name}\s+extends\s+(?:\w+\.)*(\w+)`).exec(source)?.[1];
}

/** Packages that ship nothing: the test kit (its fake releases write App error classes as text). */
const TEST_ONLY = new Set(['test-kit']);

const PACKAGE_NAMES = readdirSync(PACKAGES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !TEST_ONLY.has(entry.name))
  .map((entry) => entry.name)
  .sort();

describe('the scan finds every way a class can be an error', () => {
  it.each([
    ['export class AError extends Error {', ['AError']],
    ['class Private extends Error {}', ['Private']],
    ['export class Sub extends PaperclipRunnerError {', ['Sub']],
    ['export class AppError extends CodedError<AppErrorCode> {', ['AppError']],
    ['class T extends TypeError {}', ['T']],
    ['class N extends errors.BaseError {}', ['N']],
    ['class Framer extends Transform {}', []],
    ['interface CodedError extends Error {', []],
  ])('%j', (source, names) => {
    expect(errorClassesIn(source)).toEqual(names);
  });
});

describe('the base of a class is read without its type arguments', () => {
  it.each([
    ['export class AppError extends CodedError<AppErrorCode> {', 'AppError', 'CodedError'],
    ['export class UsageError extends Error {', 'UsageError', 'Error'],
    ['class N extends errors.BaseError {}', 'N', 'BaseError'],
    ['class Other extends CodedError<X> {}', 'AppError', undefined],
  ])('%j', (source, name, base) => {
    expect(baseOf(source, name)).toBe(base);
  });
});

describe('error classes', () => {
  it('are listed for every package (a new package gets its row)', () => {
    expect(PACKAGE_NAMES).toEqual([...Object.keys(ERROR_CLASSES), 'reference-runner'].sort());
  });

  it.each(Object.keys(ERROR_CLASSES))('%s declares at most one, the listed one', (pkg) => {
    const listed = ERROR_CLASSES[pkg]!;
    expect(listed.length).toBeLessThanOrEqual(1);
    expect(declaredIn(pkg)).toEqual(listed);
  });

  it.each(Object.keys(ERROR_CLASSES).filter((pkg) => !UNCODED.has(pkg)))(
    "%s's error extends the contract's CodedError",
    (pkg) => {
      const [name] = ERROR_CLASSES[pkg]!;
      expect(baseOf(sourceOf(pkg), name!)).toBe(BASE.name);
    },
  );

  it('the contract declares the base, abstract, and no package but the contract does', () => {
    expect(sourceOf(BASE.pkg)).toMatch(
      /\bexport abstract class CodedError<Code extends string> extends Error\b/,
    );
    for (const pkg of PACKAGE_NAMES.filter((name) => name !== BASE.pkg)) {
      expect(errorClassesIn(sourceOf(pkg)), pkg).not.toContain(BASE.name);
    }
  });

  it("reference-runner declares exactly upstream's App errors (the documented exception)", () => {
    expect(declaredIn('reference-runner')).toEqual(REFERENCE_RUNNER_CLASSES);
  });
});
