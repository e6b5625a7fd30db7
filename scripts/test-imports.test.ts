// What tests share lives in the test kit (@paperclip-evals/test-kit), so no test reaches into another
// package's test/ folder: no file of a package's test/ (nor of scripts/ or the test kit) imports,
// dynamically imports or names by a path string a file under another package's test/. And the test
// kit stays out of what ships: no package's src/ imports it, and no package's manifest lists it. And
// no test replaces a module with vi.mock (unit files share their worker's module graph).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TEST_KIT = '@paperclip-evals/test-kit';

/** A string literal, or a comment (which names nothing: left out). */
const TOKENS = /("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|\/\/[^\n]*|\/\*[\s\S]*?\*\//g;

/** The string literals of a source text, comments left out (a template's text whole, `${…}` and all). */
export function stringLiterals(source: string): string[] {
  return [...source.matchAll(TOKENS)].flatMap((match) =>
    match[1] === undefined ? [] : [match[1].slice(1, -1)],
  );
}

/** The package a repository path belongs to (`packages/<name>/…`), or null (scripts/, the root). */
function packageOf(path: string): string | null {
  return /^packages\/([^/]+)\//.exec(path)?.[1] ?? null;
}

/**
 * The other packages' test/ folders a file at `path` (repository-relative) names: by a relative
 * specifier or path resolved from its folder, by a repository path inside any string (`join(ROOT,
 * 'packages/x/test/…')`, `${ROOT}/packages/x/test/…`), or by path segments (`'packages', 'x', 'test'`).
 */
export function foreignTestReferences(path: string, source: string): string[] {
  const own = packageOf(path);
  const found: string[] = [];
  const note = (pkg: string, text: string): void => {
    if (pkg !== own) found.push(`${pkg}: ${text}`);
  };
  const literals = stringLiterals(source);
  for (const text of literals) {
    if (text.startsWith('./') || text.startsWith('../')) {
      const target = relative(ROOT, resolve(ROOT, dirname(path), text))
        .split(sep)
        .join('/');
      const pkg = /^packages\/([^/]+)\/test(?:\/|$)/.exec(target)?.[1];
      if (pkg !== undefined) note(pkg, text);
    }
    for (const match of text.matchAll(/(?:^|[^\w.-])packages\/([\w-]+)\/test(?:\/|$)/g))
      note(match[1]!, text);
  }
  const code = source.replace(TOKENS, (token, literal: string | undefined) =>
    literal === undefined ? '' : token,
  );
  for (const match of code.matchAll(/'packages'\s*,\s*'([\w-]+)'\s*,\s*'test'/g)) note(match[1]!, match[0]);
  return [...new Set(found)];
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(?:[mc]?ts|[mc]?js)$/.test(file) && !file.split(sep).includes('node_modules'))
    .map((file) => relative(ROOT, join(dir, file)).split(sep).join('/'));
}

const PACKAGES = readdirSync(join(ROOT, 'packages')).filter((name) =>
  existsSync(join(ROOT, 'packages', name, 'package.json')),
);
const SELF = relative(ROOT, fileURLToPath(import.meta.url));
/** Every file of the tests: each package's test/, the test kit, scripts/ (this file's planted cases aside). */
const TEST_FILES = [
  ...PACKAGES.flatMap((name) => filesUnder(join(ROOT, 'packages', name, 'test'))),
  ...filesUnder(join(ROOT, 'packages/test-kit/src')),
  ...filesUnder(join(ROOT, 'scripts')),
].filter((file) => file !== SELF);
const SHIPPED_SOURCES = PACKAGES.filter((name) => name !== 'test-kit').flatMap((name) =>
  filesUnder(join(ROOT, 'packages', name, 'src')),
);

/** Whether a source names the test kit: by its package name, or by a path into packages/test-kit. */
export function namesTestKit(source: string): boolean {
  return stringLiterals(source).some(
    (text) => text === TEST_KIT || text.startsWith(`${TEST_KIT}/`) || /(?:^|\/)test-kit\//.test(text),
  );
}

describe('the scan finds every way of naming another package’s test/ folder', () => {
  const file = 'packages/cli/test/some.e2e.test.ts';
  it.each([
    "import { a } from '../../policy/test/support/bundles.ts';",
    "import type { A } from '../../policy/test/support/bundles.ts';",
    "export { a } from '../../policy/test/support/bundles.js';",
    "import '../../policy/test/support/protocol.js';",
    "const m = await import('../../policy/test/support/producers.ts');",
    "const { a } = await import(\n  '../../policy/test/support/producers.ts'\n);",
    "const GOLDEN = join(REPO, 'packages/policy/test/golden/evaluate-transcript.json');",
    'const GOLDEN = `${REPO}/packages/policy/test/golden/x.json`;',
    "const DIR = fileURLToPath(new URL('../../policy/test/golden/', import.meta.url));",
    "const DIR = join(ROOT, 'packages', 'policy', 'test', 'golden');",
    'import { a } from "../../policy/test/support/bundles.ts";',
    "const FIXTURE = join(ROOT, 'packages/policy/test');",
  ])('%s', (source) => {
    expect(foreignTestReferences(file, source)).toEqual([expect.stringMatching(/^policy: /)]);
  });

  it('from scripts/ too, where every package is another', () => {
    expect(
      foreignTestReferences(
        'scripts/bench/x.ts',
        "import { a } from '../../packages/evalbook/test/support/x.ts';",
      ),
    ).toEqual([expect.stringMatching(/^evalbook: /)]);
  });

  it.each([
    ["a file's own test folder", "import { a } from './support/bundles.ts';"],
    ["its own package's test folder by repository path", "join(REPO, 'packages/cli/test/golden/x.json')"],
    ['the test kit', "import { a } from '@paperclip-evals/test-kit/policy-bundles';"],
    ["another package's sources", "import { a } from '../../policy/src/engine.ts';"],
    ['a mention in a comment', '// see packages/policy/test/producer.test.ts\n/* ../../policy/test/x.ts */'],
    ['a URL in a string', "const url = 'http://example.test/packages/x';"],
    ['a folder merely named like one', "join(ROOT, 'packages/policy/tests-old/x')"],
  ])('leaves %s alone', (_what, source) => {
    expect(foreignTestReferences('packages/cli/test/some.e2e.test.ts', source)).toEqual([]);
  });

  it('reads the test files of every package, the test kit and scripts/', () => {
    for (const prefix of [
      'packages/cli/test/',
      'packages/evalbook/test/',
      'packages/test-kit/src/',
      'scripts/bench/',
    ])
      expect(
        TEST_FILES.some((path) => path.startsWith(prefix)),
        prefix,
      ).toBe(true);
  });
});

describe('no test imports another package’s test/ folder', () => {
  it.each(TEST_FILES)('%s', (path) => {
    expect(foreignTestReferences(path, readFileSync(join(ROOT, path), 'utf8'))).toEqual([]);
  });
});

/**
 * Whether a source replaces a module for its test (vi.mock, vi.doMock, vi.unmock…), outside strings
 * and comments. Unit files run in one module graph per worker (vitest.config.ts, `isolate: false`):
 * a mock lands, or does not, by which file of the worker loaded the module first, so a test that
 * passes alone fails beside others. A test passes what it varies as an argument instead.
 */
export function mocksModules(source: string): boolean {
  return /\bvi\s*\.\s*(?:do)?(?:un)?mock\s*\(/i.test(source.replace(TOKENS, "''"));
}

describe('no test replaces a module (its worker shares one module graph)', () => {
  it.each([
    ["vi.mock('@paperclip-evals/evalbook', () => ({}));", true],
    ['vi.doMock("../src/x.ts");', true],
    ['vi . mock(`x`)', true],
    ["vi.unmock('x');", true],
    ["// vi.mock('x') would be unsound here", false],
    ['const text = "vi.mock(\'x\')";', false],
    ['vi.fn(); vi.spyOn(process, "exit");', false],
  ])('%s → %s', (source, expected) => {
    expect(mocksModules(source)).toBe(expected);
  });

  it.each(TEST_FILES)('%s', (path) => {
    expect(mocksModules(readFileSync(join(ROOT, path), 'utf8'))).toBe(false);
  });
});

describe('the test kit stays out of what ships', () => {
  it.each([
    ["import { a } from '@paperclip-evals/test-kit/synthetic';", true],
    ["const m = await import('@paperclip-evals/test-kit');", true],
    ["import { a } from '../../test-kit/src/synthetic.ts';", true],
    ["import { a } from '@paperclip-evals/test-kitchen';", false],
    ['// the test kit (@paperclip-evals/test-kit/synthetic) is not imported here', false],
  ])('the scan reads %s as naming it: %s', (source, names) => {
    expect(namesTestKit(source)).toBe(names);
  });

  it('reads the sources of the shipped packages', () => {
    expect(SHIPPED_SOURCES.some((path) => path.startsWith('packages/cli/src/'))).toBe(true);
    expect(SHIPPED_SOURCES.some((path) => path.startsWith('packages/test-kit/'))).toBe(false);
  });

  it.each(SHIPPED_SOURCES)('%s does not import the test kit', (path) => {
    expect(namesTestKit(readFileSync(join(ROOT, path), 'utf8'))).toBe(false);
  });

  it.each(PACKAGES.filter((name) => name !== 'test-kit'))(
    'packages/%s/package.json does not list it',
    (name) => {
      const manifest = JSON.parse(
        readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'),
      ) as Record<string, unknown>;
      const listed = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].filter(
        (field) => TEST_KIT in ((manifest[field] as Record<string, string> | undefined) ?? {}),
      );
      expect(listed).toEqual([]);
    },
  );

  it('is private, and only the workspace root depends on it (for the tests)', () => {
    const kit = JSON.parse(readFileSync(join(ROOT, 'packages/test-kit/package.json'), 'utf8')) as {
      name: string;
      private?: boolean;
    };
    expect(kit).toMatchObject({ name: TEST_KIT, private: true });
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    expect(root.dependencies?.[TEST_KIT]).toBeUndefined();
    expect(root.devDependencies?.[TEST_KIT]).toBe('workspace:*');
  });

  it('is not part of the build', () => {
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      references: { path: string }[];
    };
    expect(build.references.map((reference) => reference.path)).not.toContain('packages/test-kit');
  });
});
