// The eval-session check's issue for a referenced file the contained-file reader refuses: one code
// per reason (a FIFO or a directory is not "missing", an unreadable file is neither).
import { describe, expect, it } from 'vitest';
import { referenceRefusal } from '../src/eval-session.js';

const REASONS = ['symlink', 'not_a_file', 'unreadable'] as const;

describe('referenceRefusal', () => {
  it('gives each reason its own code, none of them eval_session_file_missing', () => {
    const codes = REASONS.map(
      (reason) => referenceRefusal(reason, 'artifact://native/a/x', '/artifacts/0', 'why').code,
    );
    expect(codes).toEqual([
      'eval_session_reference_symlink',
      'eval_session_file_not_regular',
      'eval_session_file_unreadable',
    ]);
    expect(new Set(codes).size).toBe(REASONS.length);
  });

  it('says where, what was found and what was expected', () => {
    const issue = referenceRefusal('not_a_file', 'artifact://native/a/x', '/artifacts/2', 'a FIFO');
    expect(issue).toEqual({
      code: 'eval_session_file_not_regular',
      component: 'runnerd',
      message: 'artifact://native/a/x: a FIFO',
      path: '/artifacts/2/uri',
      expected: 'a regular file',
      received: 'not a regular file (a directory, FIFO, socket or device)',
    });
  });
});
