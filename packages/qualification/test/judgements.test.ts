// The pure judgements over what a qualification read — the packed package.json, the probe report,
// the conformance report — and Evals' own consumer requirements, each reporting every issue.
import { describe, expect, it } from 'vitest';

import {
  completeConsumerRequirements,
  incompatibleConsumerRequirements,
  loadEvalsConsumerRequirements,
} from '../src/consumer-requirements.ts';
import {
  CONFORMANCE_CHECKS,
  judgeConformance,
  manifestIssues,
  tamperingIssues,
  undeclaredSubpaths,
} from '../src/judgements.ts';
import { probeReportIssues } from '../src/probe.ts';

import type { ProbeReport } from '../src/probe.ts';

describe('manifestIssues', () => {
  it('accepts the runner package with its three entry points', () => {
    expect(
      manifestIssues({
        name: '@paperclipai/paperclip-runner',
        version: '0.4.0-rc.1+build.5',
        exports: { '.': './a.js', './evals': './b.js', './testing': './c.js' },
        dependencies: { ajv: '8.20.0', semver: '^7.6.0' },
      }),
    ).toEqual([]);
  });

  it('lists every problem: name, version, entry points, local dependency specs', () => {
    const issues = manifestIssues({
      name: '@paperclipai/other',
      version: 'v1',
      exports: './index.js',
      dependencies: { a: 'workspace:*', b: 'file:../b', c: 'link:../c', d: '../d' },
      peerDependencies: { e: 1 },
    });
    expect(issues.map((issue) => issue.code)).toEqual([
      'package_name_mismatch',
      'package_version_invalid',
      'exports_entry_missing',
      'exports_entry_missing',
      'exports_entry_missing',
      'dependency_spec_local',
      'dependency_spec_local',
      'dependency_spec_local',
      'dependency_spec_local',
      'dependency_spec_local',
    ]);
  });
});

describe('undeclaredSubpaths', () => {
  it('probes every exports target and the built entry points, minus declared keys', () => {
    expect(
      undeclaredSubpaths({
        exports: {
          '.': { types: './dist/index.d.ts', default: './dist/index.js' },
          './evals': './dist/evals/index.js',
          './package.json': './package.json',
          './schemas/*': './schemas/*',
        },
      }),
    ).toEqual(['dist/evals/index.js', 'dist/index.d.ts', 'dist/index.js', 'dist/testing.js']);
  });
});

const DESCRIPTOR = {
  kind: 'deterministic',
  version: '0.4.0',
  protocolVersion: 'prp.v1',
  capabilities: {
    interruption: true,
    resume: true,
    structuredResult: true,
    typedEvents: true,
    unsupported: [],
  },
};
/** Upstream's report shape: its ten checks, all true, and no `passed`. */
const REPORT = {
  schema: 'paperclip-runner/harness-driver-conformance-report/v1',
  contractVersion: 1,
  descriptor: DESCRIPTOR,
  checks: Object.fromEntries(CONFORMANCE_CHECKS.map((name) => [name, true])),
  eventCount: 7,
  semanticToolCallCount: 1,
};

describe('judgeConformance', () => {
  it('accepts a passing report whose driver contract is the package’s', () => {
    expect(judgeConformance({ ok: true, value: REPORT }, 1)).toEqual({ report: REPORT, issues: [] });
  });

  it('refuses a report with a check that is not exactly true, and one missing any of the ten', () => {
    for (const notTrue of [false, 'yes', 1, null]) {
      expect(
        judgeConformance(
          { ok: true, value: { ...REPORT, checks: { ...REPORT.checks, usage: notTrue } } },
          1,
        ).issues.map((issue) => [issue.code, issue.component]),
      ).toEqual([['conformance_check_failed', 'usage']]);
    }
    for (const name of CONFORMANCE_CHECKS) {
      const { [name]: _dropped, ...rest } = REPORT.checks;
      expect(
        judgeConformance({ ok: true, value: { ...REPORT, checks: rest } }, 1).issues.map((issue) => [
          issue.code,
          issue.component,
        ]),
      ).toEqual([['conformance_check_missing', name]]);
    }
    expect(
      judgeConformance({ ok: true, value: { ...REPORT, checks: {} } }, 1).issues.map((i) => i.code),
    ).toEqual(CONFORMANCE_CHECKS.map(() => 'conformance_check_missing'));
  });

  it('refuses a contract version the package does not declare', () => {
    expect(
      judgeConformance({ ok: true, value: { ...REPORT, contractVersion: 2 } }, 1).issues.map((i) => i.code),
    ).toEqual(['conformance_contract_version_mismatch']);
  });

  it('refuses a report of the wrong shape, and a run that threw', () => {
    const malformed = judgeConformance({ ok: true, value: { ...REPORT, descriptor: { kind: 'x' } } }, 1);
    expect(malformed.report).toBeNull();
    expect(new Set(malformed.issues.map((i) => i.code))).toEqual(new Set(['conformance_report_invalid']));
    const threw = judgeConformance({ ok: false, error: { name: 'Error', code: null, message: 'boom' } }, 1);
    expect(threw.issues.map((i) => i.code)).toEqual(['conformance_threw']);
  });
});

describe('probeReportIssues', () => {
  it('refuses anything but the probe report shape', () => {
    expect(probeReportIssues({ schema: 'paperclip-evals/qualification-probe/v1' }).length).toBeGreaterThan(0);
    expect(probeReportIssues([]).map((i) => i.code)).toEqual(['probe_report_invalid']);
  });
});

describe('tamperingIssues', () => {
  const loaded = { loaded: true, exports: [] } as const;
  const clean: ProbeReport = {
    schema: 'paperclip-evals/qualification-probe/v1',
    nonce: 'n',
    node: process.version,
    intrinsicsFrozen: true,
    tampered: [],
    entryPoints: { '.': loaded, './evals': loaded, './testing': loaded },
    evals: null,
    conformance: null,
    undeclared: [],
    unhandledRejections: [],
  };
  const frozenWrite = (property: string) => ({
    name: 'TypeError',
    code: null,
    message: `Cannot assign to read only property '${property}' of function 'function Object() { [native code] }'`,
  });

  it('finds nothing in a clean report', () => {
    expect(tamperingIssues(clean)).toEqual([]);
  });

  it.each<[string, Partial<ProbeReport>, string[]]>([
    ['built-ins not frozen', { intrinsicsFrozen: false }, ['probe_intrinsics_not_frozen']],
    [
      'two globals replaced',
      { tampered: ['globalThis.JSON', 'process.stdout.write'] },
      ['package_tampers_with_builtins', 'package_tampers_with_builtins'],
    ],
    [
      'an entry point that failed writing a frozen built-in',
      { entryPoints: { ...clean.entryPoints, '.': { loaded: false, error: frozenWrite('keys') } } },
      ['package_tampers_with_builtins'],
    ],
    [
      'a conformance run that failed adding a property to a frozen prototype',
      {
        conformance: {
          ok: false,
          error: {
            name: 'TypeError',
            code: null,
            message: 'Cannot add property toJSON, object is not extensible',
          },
        },
      },
      ['package_tampers_with_builtins'],
    ],
    [
      'an unhandled rejection from redefining a built-in',
      {
        unhandledRejections: [
          { name: 'TypeError', code: null, message: 'Cannot redefine property: ownKeys' },
        ],
      },
      ['package_tampers_with_builtins'],
    ],
    [
      'an entry point that failed for another reason (not tampering)',
      {
        entryPoints: {
          ...clean.entryPoints,
          '.': { loaded: false, error: { name: 'TypeError', code: null, message: 'x is not a function' } },
        },
      },
      [],
    ],
    [
      'a RangeError whose message looks like a frozen write (only a TypeError counts)',
      {
        entryPoints: {
          ...clean.entryPoints,
          '.': { loaded: false, error: { ...frozenWrite('keys'), name: 'RangeError' } },
        },
      },
      [],
    ],
  ])('%s', (_label, change, expected) => {
    expect(tamperingIssues({ ...clean, ...change }).map((issue) => issue.code)).toEqual(expected);
  });

  it('names the replaced global', () => {
    expect(tamperingIssues({ ...clean, tampered: ['globalThis.Object'] })[0]).toMatchObject({
      component: 'globalThis.Object',
    });
  });
});

describe("Evals' consumer requirements", () => {
  const base = loadEvalsConsumerRequirements();

  it('are a valid committed document with the agreed contract', () => {
    expect(base).toMatchObject({
      schema: 'paperclip-evals/consumer-requirements/v1',
      consumer: 'paperclip-evals',
      nativeExecution: 'paperclip-runner/native-execution/v1',
      prp: { minimumVersion: 1, maximumVersion: 1 },
      driver: {
        contractVersion: 1,
        requiredCapabilities: ['interruption', 'resume', 'structuredResult', 'typedEvents'],
      },
    });
  });

  it('are completed from the release: package version and driver descriptor', () => {
    const completed = completeConsumerRequirements(base, { packageVersion: '1.2.3', descriptor: DESCRIPTOR });
    expect(completed.packageVersion).toBe('1.2.3');
    expect(completed.driver.descriptor).toEqual(DESCRIPTOR);
    expect(completed).not.toHaveProperty('x_filledAtQualification');
    expect(completed.driver.requiredCapabilities).toEqual(base.driver.requiredCapabilities);
  });

  it('have an incompatible twin speaking only PRP 99', () => {
    const completed = completeConsumerRequirements(base, { packageVersion: '1.2.3', descriptor: DESCRIPTOR });
    expect(incompatibleConsumerRequirements(completed).prp).toMatchObject({
      minimumVersion: 99,
      maximumVersion: 99,
    });
  });
});
