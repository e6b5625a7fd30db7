// The glob expander's rule as a property: over random trees (files, folders, symlinks to files and to
// folders, dot names) and random patterns, a glob yields exactly the entries a full walk would match
// with picomatch — never a non-matching entry, never a missed match (its folder pruning is safe) —
// each read or refused by its kind, and a pattern matching nothing is one input_no_match.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { afterAll, describe, expect, it } from 'vitest';

import { expandBundleInputs } from '../src/bundle-inputs.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

type Kind = 'file' | 'dir' | 'link-file' | 'link-dir';
const NAMES = ['a.json', 'b.txt', '.h.json', 'c', 'd.json', '.git', 'x.json.bak'] as const;
const name = fc.constantFrom(...NAMES);
const tree: fc.Arbitrary<[string, Kind][]> = fc.array(
  fc.tuple(
    fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/')),
    fc.constantFrom<Kind>('file', 'dir', 'link-file', 'link-dir'),
  ),
  { maxLength: 12 },
);
const segment = fc.constantFrom(
  '*',
  '**',
  '*.json',
  'a.json',
  '?.txt',
  'c',
  '.git',
  '.*',
  '*.{json,txt}',
  'd*',
);
const pattern = fc
  .array(segment, { minLength: 1, maxLength: 3 })
  .map((parts) => parts.join('/'))
  .filter((glob) => picomatch.scan(glob).isGlob); // a literal name is a file input, not a pattern

/** Builds the tree (a path whose parent is already a non-folder is skipped); every entry's kind. */
function build(entries: readonly [string, Kind][]): { root: string; kinds: Map<string, Kind> } {
  const outside = mkdtempSync(join(tmpdir(), 'evals-glob-inputs-'));
  roots.push(outside);
  writeFileSync(join(outside, 'target.json'), '{}');
  mkdirSync(join(outside, 'targetdir'));
  const root = join(outside, 'tree');
  mkdirSync(root);
  const kinds = new Map<string, Kind>();
  for (const [path, kind] of entries) {
    const parts = path.split('/');
    if (
      kinds.has(path) ||
      parts.some(
        (_, i) =>
          i > 0 &&
          kinds.get(parts.slice(0, i).join('/')) !== undefined &&
          kinds.get(parts.slice(0, i).join('/')) !== 'dir',
      )
    )
      continue;
    for (let i = 1; i < parts.length; i += 1) {
      const parent = parts.slice(0, i).join('/');
      if (!kinds.has(parent)) {
        mkdirSync(join(root, parent));
        kinds.set(parent, 'dir');
      }
    }
    const at = join(root, path);
    if (kind === 'file') writeFileSync(at, '{}');
    else if (kind === 'dir') mkdirSync(at);
    else symlinkSync(join(outside, kind === 'link-file' ? 'target.json' : 'targetdir'), at);
    kinds.set(path, kind);
  }
  return { root, kinds };
}

describe('a glob', () => {
  it('yields exactly the non-folder entries whose path matches, by kind', async () => {
    await fc.assert(
      fc.asyncProperty(tree, pattern, async (entries, glob) => {
        const { root, kinds } = build(entries);
        const matches = picomatch(glob);
        // Entries are looked for below the pattern's static base (`a.json/**` names nothing in a file).
        const { base: staticBase } = picomatch.scan(glob);
        const base = staticBase === '' ? '' : `${staticBase}/`;
        const expected = Object.fromEntries(
          [...kinds]
            .filter(([path, kind]) => kind !== 'dir' && matches(path) && path.startsWith(base))
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([path, kind]) => [path, kind === 'file' ? undefined : 'input_symlink_in_directory']),
        );
        const found = [];
        for await (const input of expandBundleInputs([`${root}/${glob}`])) found.push(input);
        if (Object.keys(expected).length === 0) {
          expect(found.map((input) => input.refusedCode)).toEqual(['input_no_match']);
          return;
        }
        expect(
          Object.fromEntries(found.map((input) => [input.display.slice(root.length + 1), input.refusedCode])),
        ).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});
