// Pins the workspace topology of DESIGN.md: dependencies point down, and the reference runner is
// walled off from Evals in both directions (package.json, tsconfig references and source imports).
// The test kit sits beside them, for tests only (what keeps it out of the shipped packages, and
// tests out of each other's test/ folders: scripts/test-imports.test.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REFERENCE_RUNNER = '@paperclipai/paperclip-runner';

/** Workspace packages each package may depend on (DESIGN.md "Layout"). */
const ALLOWED: Record<string, readonly string[]> = {
  '@paperclip-evals/contract': [],
  // The Node runtime layer (child processes, files): over the pure contract, under everything else.
  '@paperclip-evals/node': ['@paperclip-evals/contract'],
  '@paperclip-evals/checks': ['@paperclip-evals/node', '@paperclip-evals/contract'],
  '@paperclip-evals/policy': ['@paperclip-evals/node', '@paperclip-evals/contract'],
  // Evalbook scoring runs the checks engine in-process (issue 7: "one engine serves both"); checks
  // itself still depends on contract only, so every arrow still points down.
  '@paperclip-evals/evalbook': [
    '@paperclip-evals/checks',
    '@paperclip-evals/node',
    '@paperclip-evals/contract',
  ],
  '@paperclip-evals/qualification': ['@paperclip-evals/node', '@paperclip-evals/contract'],
  // Workflows that join packages (policy replay into the Evalbook, …): above every library, below the CLI.
  '@paperclip-evals/app': [
    '@paperclip-evals/qualification',
    '@paperclip-evals/evalbook',
    '@paperclip-evals/checks',
    '@paperclip-evals/policy',
    '@paperclip-evals/node',
    '@paperclip-evals/contract',
  ],
  // A campaign joins a qualified release with the Evalbook (DESIGN.md: a workflow over both).
  '@paperclip-evals/campaign': [
    '@paperclip-evals/qualification',
    '@paperclip-evals/evalbook',
    '@paperclip-evals/node',
    '@paperclip-evals/contract',
  ],
  '@paperclip-evals/cli': [
    '@paperclip-evals/app',
    '@paperclip-evals/campaign',
    '@paperclip-evals/qualification',
    '@paperclip-evals/evalbook',
    '@paperclip-evals/checks',
    '@paperclip-evals/policy',
    '@paperclip-evals/node',
    '@paperclip-evals/contract',
  ],
  [REFERENCE_RUNNER]: [],
  // The test kit: what the tests of several packages share, as TS sources (never built or shipped).
  // It may use the Evals libraries, never the workflows or the CLI the tests drive, nor the reference
  // runner; nothing depends on it but the workspace root, for the tests, and no src/ imports it
  // (scripts/test-imports.test.ts).
  '@paperclip-evals/test-kit': [
    '@paperclip-evals/qualification',
    '@paperclip-evals/evalbook',
    '@paperclip-evals/checks',
    '@paperclip-evals/policy',
    '@paperclip-evals/node',
    '@paperclip-evals/contract',
  ],
};

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const packageDirs = readdirSync(join(ROOT, 'packages')).filter((dir) =>
  existsSync(join(ROOT, 'packages', dir, 'package.json')),
);
const manifests = packageDirs.map((dir) => ({
  dir,
  manifest: JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Manifest,
}));
const workspaceNames = new Set(manifests.map(({ manifest }) => manifest.name));
const workspaceDeps = (manifest: Manifest): string[] =>
  Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies }).filter(
    (name) => workspaceNames.has(name),
  );

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter(
      (file) => /\.(ts|js|mjs)$/.test(file) && !file.includes('node_modules') && !file.startsWith('dist'),
    )
    .map((file) => join(dir, file));

describe('workspace topology', () => {
  it('knows every workspace package', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(2);
    for (const { manifest } of manifests)
      expect(Object.keys(ALLOWED), manifest.name).toContain(manifest.name);
  });

  it.each(manifests.map(({ dir, manifest }) => [manifest.name, dir, manifest] as const))(
    '%s depends only on the packages below it',
    (name, dir, manifest) => {
      const deps = workspaceDeps(manifest);
      for (const dep of deps) expect(ALLOWED[name], `${name} → ${dep}`).toContain(dep);
      const tsconfig = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'tsconfig.json'), 'utf8')) as {
        references?: { path: string }[];
      };
      const referenced = (tsconfig.references ?? [])
        .map((reference) => reference.path.replace('../', ''))
        .sort();
      const expectedDirs = deps.map((dep) => manifests.find(({ manifest: m }) => m.name === dep)?.dir).sort();
      expect(referenced, `${name} tsconfig references mirror its dependencies`).toEqual(expectedDirs);
    },
  );

  it('keeps the reference runner and Evals apart in source imports', () => {
    for (const { dir, manifest } of manifests) {
      const forbidden =
        manifest.name === REFERENCE_RUNNER
          ? /(?:from\s+|import\s*\(\s*)['"]@paperclip-evals\//
          : /(?:from\s+|import\s*\(\s*)['"](?:@paperclipai\/paperclip-runner|[^'"]*reference-runner)/;
      for (const file of [...sourceFiles(join(ROOT, 'packages', dir, 'src'))]) {
        expect(readFileSync(file, 'utf8'), file).not.toMatch(forbidden);
      }
    }
  });
});
