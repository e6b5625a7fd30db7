// Producer executables for consumer tests, written into a temp dir and run for real: a wrapper
// around the real `evals policy evaluate`, and deliberately broken producers (CommonJS scripts
// with an absolute node shebang, since the consumer runs them with an empty environment).
import { createHash } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { EVALS_BIN } from './repo.ts';

export interface Executable {
  readonly path: string;
  readonly sha256: string;
}

export type Defect =
  | 'none'
  | 'drops_a_reply'
  | 'duplicates_a_reply'
  | 'echoes_a_wrong_id'
  | 'echoes_a_padded_id'
  | 'answers_with_another_bundle'
  | 'dies_mid_stream'
  | 'dies_mid_frame'
  | 'never_flushes'
  | 'floods_stderr'
  | 'noisy_stderr'
  | 'extra_reply'
  | 'malformed_reply'
  | 'not_json'
  | 'wrong_exit_code'
  | 'no_handshake'
  | 'crashes_at_start'
  /** Lying producers: each answers in form but decides nothing, or cannot be trusted. */
  | 'undecided_empty'
  | 'undecided_no_verdict'
  | 'undecided_null_verdict'
  | 'undecided_empty_verdict'
  | 'duplicate_verdict'
  | 'duplicate_state_out'
  | 'malformed_digest'
  | 'wrong_digest'
  | 'chatters_unknown_frames'
  | 'chatters_stderr'
  | 'huge_state'
  /** Not a defect of the protocol: a verdict Evals does not know, in a Decision with fields it does not know. */
  | 'unfamiliar_verdict';

export async function writeExecutable(dir: string, name: string, source: string): Promise<Executable> {
  const path = join(dir, name);
  await writeFile(path, source);
  await chmod(path, 0o755);
  return { path, sha256: `sha256:${createHash('sha256').update(source).digest('hex')}` };
}

/** `#!/bin/sh` exec of the real producer, with absolute paths (the consumer gives it no PATH). */
export function realProducer(dir: string): Promise<Executable> {
  return writeExecutable(
    dir,
    'evals-policy-evaluate.sh',
    `#!/bin/sh\nexec '${process.execPath}' '${EVALS_BIN}' policy evaluate "$@"\n`,
  );
}

/** The Decision of a producer with an 'unfamiliar_verdict': a 20-digit integer JSON.parse would round. */
export const UNFAMILIAR_DECISION_JSON =
  '{"verdict":"escalate","rule_id":"r9","reason":"needs a human","x_future":{"weight":12345678901234567890,"tags":["a"]}}';

/** Where a broken producer writes its pid when it starts, so a test can see it was killed. */
export function pidFile(dir: string, defect: Defect): string {
  return join(dir, `producer-${defect}.pid`);
}

/**
 * A producer that answers every frame correctly (allow, state passed through) except for its
 * defect, which strikes at the second row.
 */
export function brokenProducer(dir: string, defect: Defect): Promise<Executable> {
  return writeExecutable(
    dir,
    `producer-${defect}.cjs`,
    `#!${process.execPath}
const defect = ${JSON.stringify(defect)};
require('node:fs').writeFileSync(${JSON.stringify(pidFile(dir, defect))}, String(process.pid));
const out = (frame) => process.stdout.write(JSON.stringify(frame) + '\\n');
// RFC 8785 for the test bundles (integers, plain strings): sorted keys, JSON.stringify's numbers.
const canon = (v) => Array.isArray(v) ? '[' + v.map(canon).join(',') + ']'
  : v !== null && typeof v === 'object' ? '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}'
  : JSON.stringify(v);
const digestOf = (bundle) => 'sha256:' + require('node:crypto').createHash('sha256').update(canon(bundle)).digest('hex');
let digest = 'sha256:' + '0'.repeat(64);
let stalled = false;
const chatter = (write) => { stalled = true; setInterval(write, 20); }; // never answers again; runs until killed
const UNFAMILIAR_DECISION = ${JSON.stringify(`"decision":${UNFAMILIAR_DECISION_JSON}`)};
if (defect === 'floods_stderr') {
  const block = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < 100; i++) process.stderr.write(block); // 100 MB; blocks once the pipe is full
}
if (defect === 'crashes_at_start') {
  // What node prints for a wrapper pointing at a file that is not there: the error line, then a long stack.
  process.stderr.write("node:internal/modules/cjs/loader:1228\\n  throw err;\\n  ^\\n\\nError: Cannot find module '/nowhere/evals.js'\\n" +
    '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\\n'.repeat(20) + "{\\n  code: 'MODULE_NOT_FOUND'\\n}\\n\\nNode.js v20\\n");
  process.exit(1);
}
if (defect === 'noisy_stderr') process.stderr.write('diagnostic\\n'.repeat(800000)); // ~8.8 MB, drained while it runs
if (defect === 'no_handshake') out({ type: 'bundle_ack', bundle_digest: 'sha256:' + '0'.repeat(64), skipped: [] });
else out({ type: 'handshake', engine_version: '0.0.0-broken' });
let rows = 0;
const held = [];
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const frame = JSON.parse(line);
  if (frame.type === 'bundle') {
    digest = defect === 'wrong_digest' ? 'sha256:' + '0'.repeat(64) : digestOf(frame.bundle);
    out({ type: 'bundle_ack', bundle_digest: defect === 'malformed_digest' ? digest.toUpperCase() : digest, skipped: [] });
    if (defect === 'extra_reply') out({ type: 'bundle_ack', bundle_digest: digest, skipped: [] });
    return;
  }
  rows++;
  if (stalled) return; // a chattering producer answers nothing more
  const reply = { type: 'response', id: frame.id, bundle_digest: defect === 'answers_with_another_bundle' && rows === 2 ? 'sha256:' + '1'.repeat(64) : digest, decision: { verdict: 'allow' }, state_out: frame.state_in ?? {} };
  if (rows !== 2) return defect === 'never_flushes' ? held.push(reply) : out(reply);
  switch (defect) {
    case 'drops_a_reply': return;
    case 'duplicates_a_reply': out(reply); return out(reply);
    case 'echoes_a_wrong_id': return out({ ...reply, id: 'not-' + frame.id });
    case 'echoes_a_padded_id': return out({ ...reply, id: 'r0' + frame.id.slice(1) }); // same number, other id
    case 'dies_mid_stream': process.exit(0);
    case 'dies_mid_frame': require('node:fs').writeSync(1, JSON.stringify(reply).slice(0, 40)); process.exit(0);
    case 'never_flushes': return held.push(reply);
    case 'malformed_reply': return out({ ...reply, error: { code: 'OL-1240', message: 'both' } });
    case 'not_json': return process.stdout.write('this is not json\\n');
    case 'undecided_empty': return out({ ...reply, decision: {} });
    case 'undecided_no_verdict': return out({ ...reply, decision: { rule_id: 'r1', reason: 'no verdict given' } });
    case 'undecided_null_verdict': return out({ ...reply, decision: { verdict: null } });
    case 'undecided_empty_verdict': return out({ ...reply, decision: { verdict: '' } });
    case 'duplicate_verdict': return process.stdout.write(JSON.stringify(reply).replace('"verdict":"allow"', '"verdict":"deny","verdict":"allow"') + '\\n');
    case 'duplicate_state_out': return process.stdout.write(JSON.stringify(reply).replace('"decision"', '"state_out":{"c":[1]},"decision"') + '\\n');
    case 'chatters_unknown_frames': return chatter(() => out({ type: 'keepalive', note: 'still thinking' }));
    case 'chatters_stderr': return chatter(() => process.stderr.write('still thinking\\n'));
    case 'huge_state': return out({ ...reply, state_out: { c: [], f: [], t: [], a: [], run: null, pad: 'x'.repeat(300 * 1024) } });
    case 'unfamiliar_verdict': return process.stdout.write(JSON.stringify(reply).replace('"decision":{"verdict":"allow"}', UNFAMILIAR_DECISION) + '\\n');
    default: return out(reply);
  }
});
process.stdin.on('end', () => { if (defect === 'wrong_exit_code') process.exitCode = 1; });
`,
  );
}
