// The files this package ships beside its code: its own package.json and the generated protocol/
// folder (JSON Schemas and the Evals fixtures). This module is the only place that locates them, so
// the paperclip-runnerd build can swap it for one with the same files embedded (a single
// executable application cannot read the package's folders).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: this file sits at <root>/src/assets.ts or <root>/dist/assets.js. */
const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));
const PROTOCOL_DIR = join(PACKAGE_ROOT, 'protocol');

/** The URL of a file under protocol/ (e.g. `fixtures/evals/native-execution-seeded.json`). */
export function protocolFileUrl(relativePath: string): URL {
  return new URL(`../protocol/${relativePath}`, import.meta.url);
}

export interface PackageManifest {
  readonly name: string;
  readonly version: string;
}

/** The package's own name and version, from its package.json. */
export function readPackageManifest(): PackageManifest {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as Partial<
    Record<keyof PackageManifest, unknown>
  >;
  if (typeof manifest.name !== 'string' || typeof manifest.version !== 'string') {
    throw new Error(`${PACKAGE_ROOT}package.json has no name or version`);
  }
  return { name: manifest.name, version: manifest.version };
}

/** Every JSON Schema under protocol/schemas/, parsed, in a stable order. */
export function readProtocolSchemas(): readonly object[] {
  const dir = join(PROTOCOL_DIR, 'schemas');
  let files: string[];
  try {
    files = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch (cause) {
    throw new Error(`${dir} is missing: run the package's build:protocol script`, { cause });
  }
  return files
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as object);
}
