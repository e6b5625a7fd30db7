// The strict secret name (isStrictSecretName), both ways: the names that must be one (every way a
// password, token, API key, secret or credential is named in configs, env dumps, headers and JSON
// bodies), and the names that must not — the loose SECRET_NAME's false friends (`inputTokens`,
// `attemptKey`, `author`) and every property name of our own JSON Schemas, so that maskSecretsIn
// never masks a field of our own outputs and a `NAME: value` of ours is never taken for a secret.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { isSecretName, isStrictSecretName } from '../src/secrets.ts';

const STRICT = [
  'password',
  'PASSWORD',
  'Password',
  'PGPASSWORD',
  'sslpassword',
  'db_password',
  'dbPassword',
  'DB.PASSWORD',
  'password_2',
  'password1',
  'passwd',
  'pwd',
  'PWD',
  'db.pwd',
  'passphrase',
  'ssh_passphrase',
  'secret',
  'client_secret',
  'clientSecret',
  'CLIENT_SECRET',
  'webhook-secret',
  'api_key',
  'apiKey',
  'APIKey',
  'ApiKey',
  'api-key',
  'x-api-key',
  'X-Api-Key',
  'apikey',
  'OPENAI_API_KEY',
  'EVALS_ENGINE_PROVIDER_API_KEY',
  'access_key',
  'accessKey',
  'aws_secret_access_key',
  'AWS_SECRET_ACCESS_KEY',
  'secretAccessKey',
  'private_key',
  'privateKey',
  'secret_key',
  'secretKey',
  'signing_key',
  'encryption_key',
  'master_key',
  'token',
  'TOKEN',
  'access_token',
  'accessToken',
  'auth_token',
  'authToken',
  'authtoken',
  'session_token',
  'AWS_SESSION_TOKEN',
  'refresh_token',
  'id_token',
  'GITHUB_TOKEN',
  'x-auth-token',
  'token_2',
  'bearer',
  'bearer_token',
  'credential',
  'credentials',
  'Credentials',
  'auth',
  '_auth',
  'npm_config__auth',
];

/** The loose name's false friends: counts, ids, keys of a record, authors, and a path to a secret. */
const NOT_STRICT = [
  'tokens',
  'inputTokens',
  'outputTokens',
  'maxTokens',
  'max_tokens',
  'total_tokens',
  'cachedInputTokens',
  'tokenCount',
  'tokenizer',
  'token_budget',
  'key',
  'keys',
  'attemptKey',
  'caseKey',
  'cacheKey',
  'sortKey',
  'idempotencyKey',
  'comparableKey',
  'contextKmsKeyArn',
  'keyId',
  'monkey',
  'author',
  'authors',
  'authority',
  'authorization',
  'authorizationBoundary',
  'oauth',
  'pass',
  'passed',
  'allPassed',
  'passRate',
  'passAtK',
  'passwordFile',
  'password_file',
  'PGPASSFILE',
  'secretName',
  'secret_id',
  'credentialId',
  'signal',
  'signature',
  'sig',
  'design',
  'cwd',
  'OLDPWD_DIR',
];

describe('isStrictSecretName', () => {
  it.each(STRICT)('%s is a strict secret name (and a loose one)', (name) => {
    expect(isStrictSecretName(name)).toBe(true);
    expect(isSecretName(name)).toBe(true);
  });

  it.each(NOT_STRICT)('%s is not a strict secret name', (name) => {
    expect(isStrictSecretName(name)).toBe(false);
  });

  it('a strict name stays one whatever comes before it, and every strict name is a loose one', () => {
    const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,8}$/);
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 3 }),
        fc.constantFrom('_', '-', '.'),
        fc.constantFrom(...STRICT),
        (before, separator, name) => {
          const prefixed = [...before, name].join(separator);
          expect(isStrictSecretName(prefixed)).toBe(true);
          expect(isSecretName(prefixed)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[\w.-]{1,24}$/), (name) => {
        if (isStrictSecretName(name)) expect(isSecretName(name)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('a name asked again is judged the same (a name judged once is remembered)', () => {
    for (const name of [...STRICT, ...NOT_STRICT, ...NOT_STRICT, ...STRICT])
      expect(isStrictSecretName(name)).toBe(STRICT.includes(name));
  });
});

const SCHEMAS = fileURLToPath(new URL('../../../schemas/', import.meta.url));

/** Every property name a JSON Schema of ours declares (properties, patternProperties, required). */
function propertyNames(folder: string, names: Set<string>): Set<string> {
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (node !== null && typeof node === 'object') {
      const schema = node as Record<string, unknown>;
      for (const member of ['properties', 'patternProperties']) {
        const declared = schema[member];
        if (declared !== null && typeof declared === 'object' && !Array.isArray(declared))
          for (const name of Object.keys(declared)) names.add(name);
      }
      if (Array.isArray(schema.required))
        for (const name of schema.required) if (typeof name === 'string') names.add(name);
      Object.values(schema).forEach(collect);
    }
  };
  for (const entry of readdirSync(folder)) {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) propertyNames(path, names);
    else if (entry.endsWith('.json')) collect(JSON.parse(readFileSync(path, 'utf8')) as unknown);
  }
  return names;
}

describe('no field of our own documents has a strict secret name', () => {
  const names = [...propertyNames(SCHEMAS, new Set())];

  it('the schemas were read (every output and input document of ours)', () => {
    expect(names.length).toBeGreaterThan(500);
    // The loose rule's false friends are there, so the strict rule is tested against them.
    for (const name of ['comparableKey', 'idempotencyKey', 'inputTokens', 'authorizationBoundary', 'pass'])
      expect(names).toContain(name);
  });

  it('none of them is a strict secret name (none of them holds a secret)', () => {
    expect(names.filter((name) => isStrictSecretName(name))).toEqual([]);
  });
});
