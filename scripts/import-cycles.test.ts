// No import cycle between the files of any package's src/, type imports included. The lint rule
// (import-x/no-cycle) follows value imports only, so a renderer importing a type from the report
// that imports the renderer (the cycle issue 16 broke) would pass it; this graph counts every
// `import`, `import type`, `export … from` and `import('…')` between a package's own files.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The relative specifiers a TypeScript source imports (static, type-only, re-exports, dynamic). */
function relativeSpecifiers(text: string): string[] {
  const statements = /^\s*(?:import|export)\b[^;]*?\bfrom\s*'(\.[^']*)'|^\s*import\s*'(\.[^']*)'/gms;
  const dynamic = /\bimport\(\s*'(\.[^']*)'\s*\)/g;
  return [
    ...[...text.matchAll(statements)].map((match) => match[1] ?? match[2] ?? ''),
    ...[...text.matchAll(dynamic)].map((match) => match[1] ?? ''),
  ];
}

/** The file a specifier names among `files`: `./x.js` is the source `x.ts` (NodeNext), else itself. */
function resolveSpecifier(from: string, specifier: string, files: ReadonlySet<string>): string | null {
  const target = resolve(dirname(from), specifier);
  for (const candidate of [target.replace(/\.js$/, '.ts'), target, `${target}.ts`])
    if (files.has(candidate)) return candidate;
  return null;
}

/** Every cycle of the graph of `sources` (path → text), each as its files in import order, the first repeated. */
function importCycles(sources: ReadonlyMap<string, string>): string[][] {
  const files = new Set(sources.keys());
  const edges = new Map<string, string[]>();
  for (const [file, text] of sources)
    edges.set(
      file,
      relativeSpecifiers(text).flatMap((specifier) => resolveSpecifier(file, specifier, files) ?? []),
    );
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): void => {
    const at = path.indexOf(file);
    if (at !== -1) {
      cycles.push([...path.slice(at), file]);
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const next of edges.get(file) ?? []) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of [...files].sort()) visit(file);
  return cycles;
}

const sourcesUnder = (dir: string): Map<string, string> =>
  new Map(
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => [join(dir, file), readFileSync(join(dir, file), 'utf8')]),
  );

describe('the import graph of each package', () => {
  const packages = readdirSync(join(ROOT, 'packages')).filter((name) =>
    existsSync(join(ROOT, 'packages', name, 'src')),
  );

  it('covers every package with sources', () => {
    expect(packages).toEqual(expect.arrayContaining(['cli', 'contract', 'evalbook']));
  });

  it.each(packages)('%s/src has no import cycle, type imports included', (name) => {
    const src = join(ROOT, 'packages', name, 'src');
    const cycles = importCycles(sourcesUnder(src)).map((cycle) =>
      cycle.map((file) => relative(src, file)).join(' → '),
    );
    expect(cycles).toEqual([]);
  });
});

describe('importCycles (mutation rows: a cycle of each kind is caught)', () => {
  const at = (name: string): string => join(ROOT, 'fixture', name);
  const rows: [string, Record<string, string>, string[][]][] = [
    ['no cycle', { 'a.ts': "import { b } from './b.js';", 'b.ts': 'export const b = 1;' }, []],
    [
      'a value cycle',
      { 'a.ts': "import { b } from './b.js';", 'b.ts': "import { a } from './a.js';" },
      [['a.ts', 'b.ts', 'a.ts']],
    ],
    [
      'a cycle closed by a type import (what no-cycle does not follow)',
      {
        'report.ts': "import { render } from './html/render.js';",
        'html/render.ts': "import type {\n  Attempt,\n} from '../report.js';",
      },
      [['html/render.ts', 'report.ts', 'html/render.ts']],
    ],
    [
      'a cycle through a dynamic import',
      {
        'store.ts': "const { Sqlite } = await import('./sqlite.js');",
        'sqlite.ts': "import { rows } from './store.js';",
      },
      [['sqlite.ts', 'store.ts', 'sqlite.ts']],
    ],
    [
      'a cycle through a re-export, three files long',
      {
        'index.ts': "export { x } from './x.js';",
        'x.ts': "import './y.js';",
        'y.ts': "export * from './index.js';",
      },
      [['index.ts', 'x.ts', 'y.ts', 'index.ts']],
    ],
    ['an import of a file outside the graph', { 'a.ts': "import { z } from '../elsewhere/z.js';" }, []],
  ];
  it.each(rows)('%s', (_name, files, expected) => {
    const sources = new Map(Object.entries(files).map(([name, text]) => [at(name), text]));
    expect(importCycles(sources)).toEqual(expected.map((cycle) => cycle.map(at)));
  });
});
