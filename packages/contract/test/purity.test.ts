// The contract is pure (issue 16): its sources start no child process, write or open no file and ask
// nothing of the OS — that is @paperclip-evals/node's job. The one file read it keeps is the schema
// registry loading the shipped schemas (readFileSync / readdirSync in schema-registry.ts); the
// build step that writes the precompiled validators lives in build/, outside src/.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Modules the contract never imports, whatever the names. */
const FORBIDDEN_MODULES = new Set([
  'child_process',
  'os',
  'fs/promises',
  'net',
  'dgram',
  'http',
  'https',
  'worker_threads',
  'cluster',
]);
/** What a contract file may take from node:fs: reading, for the schema registry only. */
const FS_READS: Readonly<Record<string, readonly string[]>> = {
  'schema-registry.ts': ['readFileSync', 'readdirSync'],
};

interface Import {
  readonly module: string;
  readonly names: readonly string[];
}

/** Every static and dynamic import and require of a source text, with the names it takes. */
function importsOf(source: string): Import[] {
  const found: Import[] = [];
  const statement = /\bimport\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]/g;
  for (const match of source.matchAll(statement)) {
    const module = match[3] ?? match[4] ?? '';
    const clause = match[2] ?? '';
    if (match[1] !== undefined) continue; // `import type`: erased, no code runs
    const braces = /\{([^}]*)\}/.exec(clause)?.[1];
    const names =
      braces === undefined
        ? ['*']
        : braces
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name !== '' && !name.startsWith('type '))
            .map((name) => name.split(/\s+as\s+/)[0] ?? name);
    if (braces !== undefined && /^\s*\w+\s*,/.test(clause)) names.push('*'); // a default import too
    found.push({ module, names });
  }
  for (const match of source.matchAll(/\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g))
    found.push({ module: match[1] ?? '', names: ['*'] });
  return found;
}

/** What is wrong with one file's imports, in words; [] when it keeps the contract pure. */
function impurities(file: string, source: string): string[] {
  const problems: string[] = [];
  for (const { module, names } of importsOf(source)) {
    const bare = module.replace(/^node:/, '');
    if (FORBIDDEN_MODULES.has(bare)) problems.push(`${file} imports ${module}`);
    else if (bare === 'fs') {
      const allowed = FS_READS[file] ?? [];
      for (const name of names)
        if (!allowed.includes(name)) problems.push(`${file} takes ${name} from ${module}`);
    }
  }
  return problems;
}

const sources = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) =>
  file.endsWith('.ts'),
);

describe('the contract is pure', () => {
  it('has sources to scan', () => {
    expect(sources.length).toBeGreaterThan(10);
  });

  it.each(sources)('%s starts no child, writes or opens no file, asks nothing of the OS', (file) => {
    expect(impurities(file, readFileSync(join(SRC, file), 'utf8'))).toEqual([]);
  });
});

describe('the scan itself', () => {
  it.each([
    ["import { spawn } from 'node:child_process';", 'x.ts imports node:child_process'],
    ["import { tmpdir } from 'node:os';", 'x.ts imports node:os'],
    ["import { open } from 'node:fs/promises';", 'x.ts imports node:fs/promises'],
    ["import { writeFileSync } from 'node:fs';", 'x.ts takes writeFileSync from node:fs'],
    ["import { constants as c, openSync } from 'fs';", 'x.ts takes constants from fs'],
    ["import * as fs from 'node:fs';", 'x.ts takes * from node:fs'],
    ["const cp = await import('node:child_process');", 'x.ts imports node:child_process'],
    ["const os = require('os');", 'x.ts imports os'],
  ])('refuses %s', (source, problem) => {
    expect(impurities('x.ts', source)).toContain(problem);
  });

  it('lets the schema registry read, and lets type-only imports be', () => {
    expect(impurities('schema-registry.ts', "import { readdirSync, readFileSync } from 'node:fs';")).toEqual(
      [],
    );
    expect(impurities('x.ts', "import type { Stats } from 'node:fs';")).toEqual([]);
    expect(impurities('x.ts', "import { readFileSync } from 'node:fs';")).toEqual([
      'x.ts takes readFileSync from node:fs',
    ]);
  });
});
