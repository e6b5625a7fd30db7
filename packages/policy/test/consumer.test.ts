// The consumer against real processes: it drives the real `evals policy evaluate` (producer and
// consumer pass each other's tests) and fails the job, with a clear reason and no decision
// invented, against every deliberately broken producer.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readNativeExecutionFile } from '@paperclip-evals/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { PolicyError } from '../src/errors.ts';
import { replayAttempts } from '../src/replay-attempts.ts';
import { toolCallSessions } from '../src/attempts.ts';
import { REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { bundleOf, denyApprovals, denyRm, writeRate } from '@paperclip-evals/test-kit/policy-bundles';
import { brokenProducer, pidFile, realProducer, writeExecutable } from '@paperclip-evals/test-kit/producers';

import type { NativeExecution } from '@paperclip-evals/contract';

import type { Defect } from '@paperclip-evals/test-kit/producers';

const ATTEMPTS_DIR = join(REPO_ROOT, 'fixtures/attempts/valid');

let dir: string;
let attempts: NativeExecution[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-policy-consumer-'));
  const files = (await readdir(ATTEMPTS_DIR)).filter((name) => name.endsWith('.json')).sort();
  attempts = await Promise.all(
    files.map(async (name) => (await readNativeExecutionFile(join(ATTEMPTS_DIR, name))).bundle),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('against the real evals policy evaluate', () => {
  it('replays every tool call and compares it with the recorded outcome', async () => {
    const producer = await realProducer(dir);
    const result = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyApprovals, writeRate)),
      sessions: toolCallSessions(attempts),
      initialState: 'zeroed',
      processes: 2,
    });
    const calls = toolCallSessions(attempts).flatMap((session) => [...session.events]);
    expect(result.rows).toBe(calls.length);
    expect(result.rowErrors).toBe(0);
    expect(result.handshake).toMatchObject({ type: 'handshake', protocol_version: 1 });
    const denied = result.calls.find((call) => call.toolName === 'decide_approval');
    expect(denied).toMatchObject({
      verdict: 'deny',
      ruleId: 'no-approvals',
      recordedOutcome: 'denied',
      agreement: 'agree',
    });
    const reads = result.calls.filter((call) => call.toolName === 'read_document');
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(read.verdict).toBe('allow');
  });

  it('reports a disagreement both ways', async () => {
    const producer = await realProducer(dir);
    const denyReads = {
      ...denyApprovals,
      id: 'no-reads',
      body: { ...denyApprovals.body, when: { field: 'tool_name', equals: 'read_document' } },
    };
    const result = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyReads)),
      sessions: toolCallSessions(attempts),
      initialState: 'zeroed',
    });
    const agreements = new Set(result.calls.map((call) => `${call.toolName}:${call.agreement}`));
    expect(agreements).toContain('decide_approval:runner_denied_policy_allows');
    expect(agreements).toContain('read_document:policy_denies_runner_allowed');
  });

  it('with unavailable state, lets each Tier 2 artifact apply its on_evict', async () => {
    const producer = await realProducer(dir);
    const result = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(writeRate)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
    });
    expect(result.rowErrors).toBe(0);
    expect(result.calls.every((call) => call.verdict === 'allow' || call.verdict === 'ask')).toBe(true);
  });

  it('fails the job when the producer rejects the bundle', async () => {
    const producer = await realProducer(dir);
    await expect(
      replayAttempts({
        binaryPath: producer.path,
        binarySha256: producer.sha256,
        binaryArgs: [],
        bundle: JSON.stringify(bundleOf(denyRm)).replace('policy-bundle/v1', 'policy-bundle/v9'),
        sessions: toolCallSessions(attempts),
        initialState: 'unavailable',
      }),
    ).rejects.toMatchObject({ code: 'paperclip_policy_job_failed', issues: [{ code: 'bundle_rejected' }] });
  });
});

describe('against a broken producer', () => {
  const cases: [Defect, string, RegExp][] = [
    ['drops_a_reply', 'reply_missing', /no response for id r\d+/],
    ['duplicates_a_reply', 'reply_duplicate', /second response/],
    ['echoes_a_wrong_id', 'id_mismatch', /does not echo the request id/],
    [
      'answers_with_another_bundle',
      'bundle_digest_mismatch',
      /names bundle sha256:1{64}, not the acknowledged sha256:[0-9a-f]{64}/,
    ],
    ['echoes_a_padded_id', 'id_mismatch', /response id "r0\d+" does not echo the request id r\d+/],
    ['dies_mid_stream', 'reply_missing', /ended with exit code 0 and \d+ repl(?:y|ies) missing/],
    ['dies_mid_frame', 'output_truncated', /stdout ended inside a frame/],
    ['never_flushes', 'reply_timeout', /no required reply from the producer for 1500 ms/],
    ['floods_stderr', 'stderr_overflow', /more than 16777216 bytes to stderr/],
    ['extra_reply', 'reply_unexpected', /a bundle_ack frame when/],
    ['malformed_reply', 'reply_malformed', /neither decision nor state_out/],
    ['not_json', 'frame_invalid', /not JSON/],
    ['wrong_exit_code', 'exit_mismatch', /exit code 1, but 0 row errors/],
    ['no_handshake', 'handshake_invalid', /first frame is not a handshake/],
    [
      'crashes_at_start',
      'reply_missing',
      /ended with exit code 1 before its handshake; stderr says Error: Cannot find module '\/nowhere\/evals\.js' and ends: …[\s\S]*Node\.js v20$/,
    ],
    // Lying producers: well-formed frames that decide nothing, or that cannot be trusted.
    ['undecided_empty', 'reply_undecided', /decision without a verdict .*received no verdict/],
    ['undecided_no_verdict', 'reply_undecided', /received no verdict/],
    ['undecided_null_verdict', 'reply_undecided', /received null/],
    ['undecided_empty_verdict', 'reply_undecided', /received an empty string/],
    ['duplicate_verdict', 'reply_duplicate_key', /repeats the key at \/decision\/verdict/],
    ['duplicate_state_out', 'reply_duplicate_key', /repeats the key at \/state_out/],
    ['malformed_digest', 'reply_malformed', /bundle_digest \("sha256:" \+ 64 lowercase hex digits\)/],
    [
      'wrong_digest',
      'bundle_digest_mismatch',
      /acknowledged the bundle as sha256:0{64}, but the RFC 8785 digest of the bundle sent is sha256:[0-9a-f]{64}/,
    ],
    ['chatters_unknown_frames', 'reply_timeout', /no required reply from the producer for 1500 ms/],
    ['chatters_stderr', 'reply_timeout', /no required reply from the producer for 1500 ms/],
    ['huge_state', 'state_too_large', /over the 262144-character state cap/],
  ];
  const silent = new Set<Defect>(['never_flushes', 'chatters_unknown_frames', 'chatters_stderr']);

  it.each(cases)('%s → job error %s, no decisions returned', async (defect, code, message) => {
    const producer = await brokenProducer(dir, defect);
    const replay = replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
      // Short only where silence is the defect; elsewhere a slow start on a busy box must not matter.
      replyTimeoutMs: silent.has(defect) ? 1500 : 60_000,
      processes: 2,
    });
    const error: unknown = await replay.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(PolicyError);
    expect(error).toMatchObject({
      code: 'paperclip_policy_job_failed',
      issues: [{ code, message: expect.stringMatching(message) as unknown }],
    });
  });

  it('a binary that never speaks (node reading stdin as a script): the timeout says no handshake ever came, and what to check', async () => {
    // The reviewer's case: `--policy-binary node` with its script argument forgotten.
    const mute = await writeExecutable(dir, 'mute-producer.sh', `#!/bin/sh\nexec '${process.execPath}'\n`);
    const error = await replayAttempts({
      binaryPath: mute.path,
      binarySha256: mute.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
      replyTimeoutMs: 1500,
    }).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toMatchObject({
      code: 'paperclip_policy_job_failed',
      issues: [
        {
          code: 'reply_timeout',
          message: expect.stringMatching(
            /for 1500 ms with .* due \(other output does not count\): no handshake line ever arrived from it\. Is the binary an evaluate producer .*\? Are its arguments right/,
          ) as unknown,
        },
      ],
    });
  });

  it('a producer that handshook and then went silent: no handshake hint', async () => {
    const producer = await brokenProducer(dir, 'never_flushes');
    const error = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
      replyTimeoutMs: 1500,
    }).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toMatchObject({ issues: [{ code: 'reply_timeout' }] });
    expect((error as PolicyError).issues[0]?.message).not.toContain('handshake');
  });

  it('kills a producer that stops answering (its process is gone after the job error)', async () => {
    const producer = await brokenProducer(dir, 'never_flushes');
    await expect(
      replayAttempts({
        binaryPath: producer.path,
        binarySha256: producer.sha256,
        binaryArgs: [],
        bundle: JSON.stringify(bundleOf(denyRm)),
        sessions: toolCallSessions(attempts),
        initialState: 'unavailable',
        replyTimeoutMs: 1500,
      }),
    ).rejects.toMatchObject({ issues: [{ code: 'reply_timeout' }] });
    const pid = Number(await readFile(pidFile(dir, 'never_flushes'), 'utf8'));
    // SIGKILL is immediate; the wait is only for the zombie to be reaped.
    await vi.waitFor(() => {
      expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    }, 10_000);
  });

  it('drains a noisy stderr while it runs, and completes when the replies are right', async () => {
    const producer = await brokenProducer(dir, 'noisy_stderr');
    const result = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
    });
    expect(result.rowErrors).toBe(0);
    expect(result.calls.length).toBe(result.rows);
  });
});

/**
 * A producer that answers every frame in form (allow, the state passed through), except that its
 * second response is `reply` (the frame text it would have written → the text it writes instead).
 */
async function rewritingProducer(name: string, pattern: RegExp, replacement: string) {
  return writeExecutable(
    dir,
    `producer-rewrites-${name}.cjs`,
    `#!${process.execPath}
const canon = (v) => Array.isArray(v) ? '[' + v.map(canon).join(',') + ']'
  : v !== null && typeof v === 'object' ? '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}'
  : JSON.stringify(v);
const out = (text) => process.stdout.write(text + '\\n');
out(JSON.stringify({ type: 'handshake' }));
let digest = null;
let rows = 0;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const frame = JSON.parse(line);
  if (frame.type === 'bundle') {
    digest = 'sha256:' + require('node:crypto').createHash('sha256').update(canon(frame.bundle)).digest('hex');
    return out(JSON.stringify({ type: 'bundle_ack', bundle_digest: digest, skipped: [] }));
  }
  const state = frame.state_in ?? { c: [], f: [], t: [], a: [], run: null };
  const text = JSON.stringify({ type: 'response', id: frame.id, bundle_digest: digest, decision: { verdict: 'allow', reason: 'ok' }, state_out: state });
  out(++rows === 2 ? text.replace(${pattern.toString()}, ${JSON.stringify(replacement)}) : text);
});
`,
  );
}

// A reply must be Unicode text (the seed: UTF-8 NDJSON; I-JSON, RFC 7493 §2.1): a \uD800-\uDFFF escape
// with no partner is valid JSON syntax but no character, so the frame is refused as invalid JSON
// (frame_invalid), wherever the escape is, never kept as a decision or threaded on as a state.
describe('a reply holding an unpaired surrogate escape', () => {
  const cases: [string, RegExp, string, string][] = [
    ['in the decision reason', /"reason":"ok"/, '"reason":"\\ud800"', '/decision/reason'],
    ['in a decision key', /"reason":"ok"/, '"\\udc00":"ok"', '/decision/\udc00'],
    ['in the verdict', /"verdict":"allow"/, '"verdict":"allow\\udbff"', '/decision/verdict'],
    ['in an unknown member', /"decision"/, '"note":"x\\ud83d","decision"', '/note'],
    [
      'in a trailing state_out run shape',
      /"state_out":\{[^}]*\}/,
      '"state_out":{"c":[],"f":[],"t":[],"a":[],"run":{"shape":"\\ude00","len":0}}',
      '/state_out/run/shape',
    ],
  ];
  it.each(cases)('%s → frame_invalid, no decisions returned', async (name, pattern, replacement, path) => {
    const producer = await rewritingProducer(name.replaceAll(' ', '-'), pattern, replacement);
    const error: unknown = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
    }).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(PolicyError);
    expect(error).toMatchObject({
      code: 'paperclip_policy_job_failed',
      issues: [
        {
          code: 'frame_invalid',
          message: expect.stringContaining(`unpaired UTF-16 surrogate escape at ${path}`) as unknown,
        },
      ],
    });
  });

  it('a paired escape (one character, as JSON may write it) is read as that character', async () => {
    const producer = await rewritingProducer('paired', /"reason":"ok"/, '"reason":"\\ud83d\\ude00"');
    const result = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
    });
    expect(result.calls.map((call) => call.reason)).toContain('\u{1F600}');
  });
});

// The seed's session state: c, t and a hold signed 64-bit integers, f booleans, run null or
// {shape: null or a string, len: a signed 64-bit integer}. A state_out that is not such a register
// file is a malformed reply (reply_malformed), never threaded on as the next row's state_in (where it
// would surface as a row error blamed on the next call, or, a session's last, not at all).
describe('a success whose state_out is not a register file', () => {
  const file = (members: string) => `"state_out":{${members}}`;
  const whole = /"state_out":\{[^}]*\}/;
  const cases: [string, string][] = [
    ['a register with a fraction', file('"c":[1.0],"f":[],"t":[],"a":[],"run":null')],
    ['a register with an exponent', file('"c":[],"f":[],"t":[1e3],"a":[],"run":null')],
    ['a register past 2^63 - 1', file('"c":[9223372036854775808],"f":[],"t":[],"a":[],"run":null')],
    ['a register below -2^63', file('"c":[],"f":[],"t":[],"a":[-9223372036854775809],"run":null')],
    [
      'a register past 2^64 (spaced, not the fast path)',
      file('"c": [ 99999999999999999999 ],"f":[],"t":[],"a":[],"run":null'),
    ],
    ['a register that is a string', file('"c":["1"],"f":[],"t":[],"a":[],"run":null')],
    ['a flag that is a number', file('"c":[],"f":[0],"t":[],"a":[],"run":null')],
    ['registers that are no array', file('"c":{},"f":[],"t":[],"a":[],"run":null')],
    ['a run that is a string', file('"c":[],"f":[],"t":[],"a":[],"run":"x"')],
    [
      'a run length past 2^63 - 1',
      file('"c":[],"f":[],"t":[],"a":[],"run":{"shape":null,"len":9223372036854775808}'),
    ],
    ['a run shape that is a number', file('"c":[],"f":[],"t":[],"a":[],"run":{"shape":1,"len":0}')],
  ];
  it.each(cases)('%s → reply_malformed, no decisions returned', async (name, replacement) => {
    const producer = await rewritingProducer(
      `state-${name.replace(/[^a-z0-9]+/gi, '-')}`,
      whole,
      replacement,
    );
    const error: unknown = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
    }).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(PolicyError);
    expect(error).toMatchObject({
      code: 'paperclip_policy_job_failed',
      issues: [
        {
          code: 'reply_malformed',
          message: expect.stringMatching(/state_out that is not a register file: state_out\.\w/) as unknown,
        },
      ],
    });
  });

  it('the extremes of the range, and a run with a shape, are a register file', async () => {
    const producer = await rewritingProducer(
      'state-extremes',
      whole,
      file(
        '"c":[9223372036854775807],"f":[true],"t":[-9223372036854775808],"a":[0],"run":{"shape":"Bash","len":3}',
      ),
    );
    const result = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
    });
    expect(result.rowErrors).toBe(0);
  });
});

// The bundle is ours to send: read as strictly as every frame is. A repeated key is ambiguous (our
// producer skips such a header without a reply, as invalid JSON: the job would wait out its reply
// timeout), an unpaired surrogate is no character: either is the caller's invalid bundle, refused
// before any producer starts, whatever the initial state, never a timeout, never sent.
describe('a policy bundle that is not strict JSON', () => {
  const valid = JSON.stringify(bundleOf(denyRm));
  const cases: [string, string, string, string][] = [
    [
      'a repeated top-level key',
      valid.replace('"schema":', '"schema":"x","schema":'),
      'json_duplicate_key',
      '/schema',
    ],
    [
      'a repeated key in a body',
      valid.replace('"verdict":', '"verdict":"allow","verdict":'),
      'json_duplicate_key',
      '/artifacts/0/body/verdict',
    ],
    [
      'an unpaired surrogate in a reason',
      valid.replace(/"reason":"[^"]*"/, '"reason":"\\ud800"'),
      'json_lone_surrogate',
      '/artifacts/0/body/reason',
    ],
    ['not JSON', `${valid}x`, 'json_syntax', ''],
  ];
  it.each(cases)(
    '%s → paperclip_policy_bundle_invalid, no producer run',
    async (_name, bundle, code, path) => {
      for (const initialState of ['unavailable', 'zeroed'] as const) {
        const replay = replayAttempts({
          binaryPath: join(dir, 'no-such-producer'),
          binarySha256: `sha256:${'0'.repeat(64)}`,
          binaryArgs: [],
          bundle,
          sessions: toolCallSessions(attempts),
          initialState,
          replyTimeoutMs: 60_000,
        });
        await expect(replay).rejects.toMatchObject({
          code: 'paperclip_policy_bundle_invalid',
          issues: expect.arrayContaining([expect.objectContaining({ code, path })]) as unknown,
        });
      }
    },
  );
});

// A producer that closes its stdout yet keeps running can never answer again: the replies due are
// missing now, not after the reply timeout (the job waited out --reply-timeout-ms, 60 s, and then
// blamed silence). It is killed; a producer that closes stdout by exiting is still told by its exit.
describe('a producer that closes its stdout and stays alive', () => {
  it('fails the job at once with reply_missing (not reply_timeout), and is killed', async () => {
    const pidPath = join(dir, 'closes-stdout.pid');
    const producer = await writeExecutable(
      dir,
      'producer-closes-stdout.cjs',
      `#!${process.execPath}
require('node:fs').writeFileSync(${JSON.stringify(pidPath)}, String(process.pid));
process.stdout.write(JSON.stringify({ type: 'handshake' }) + '\\n', () => {
  require('node:fs').closeSync(1);
  process.stdin.resume();
  setInterval(() => {}, 1000);
});
`,
    );
    const started = performance.now();
    const error: unknown = await replayAttempts({
      binaryPath: producer.path,
      binarySha256: producer.sha256,
      binaryArgs: [],
      bundle: JSON.stringify(bundleOf(denyRm)),
      sessions: toolCallSessions(attempts),
      initialState: 'unavailable',
      replyTimeoutMs: 60_000,
    }).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toMatchObject({
      code: 'paperclip_policy_job_failed',
      issues: [
        {
          code: 'reply_missing',
          message: expect.stringMatching(
            /closed its stdout while still running, with 1 reply missing/,
          ) as unknown,
        },
      ],
    });
    expect(performance.now() - started).toBeLessThan(20_000);
    const pid = Number(await readFile(pidPath, 'utf8'));
    await vi.waitFor(() => {
      expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    }, 10_000);
  }, 90_000);
});

describe('the policy binary', () => {
  it('is refused when its digest differs', async () => {
    const producer = await realProducer(dir);
    await expect(
      replayAttempts({
        binaryPath: producer.path,
        binarySha256: `sha256:${'0'.repeat(64)}`,
        binaryArgs: [],
        bundle: JSON.stringify(bundleOf()),
        sessions: toolCallSessions(attempts),
        initialState: 'unavailable',
      }),
    ).rejects.toMatchObject({
      code: 'paperclip_policy_binary_invalid',
      issues: [{ code: 'digest_mismatch' }],
    });
  });

  it('is never looked up on PATH', async () => {
    await expect(
      replayAttempts({
        binaryPath: 'sh',
        binarySha256: `sha256:${'0'.repeat(64)}`,
        binaryArgs: [],
        bundle: JSON.stringify(bundleOf()),
        sessions: toolCallSessions(attempts),
        initialState: 'unavailable',
      }),
    ).rejects.toMatchObject({ code: 'paperclip_policy_binary_invalid', issues: [{ code: 'path_invalid' }] });
  });
});
