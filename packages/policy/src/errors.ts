// The one coded error of the policy package. A replay job that cannot be trusted (a producer that
// breaks the evaluate protocol, an unusable binary, an unreadable bundle) fails with a PolicyError
// whose issues say every reason found; a reported row error is data, never a PolicyError.
import { CodedError } from '@paperclip-evals/contract';

export type PolicyErrorCode =
  /** The policy bundle given to replay is not a document the producer can load. */
  | 'paperclip_policy_bundle_invalid'
  /** The policy binary could not be verified (path or sha256), like runnerd's resolver. */
  | 'paperclip_policy_binary_invalid'
  /** The producer broke the evaluate protocol, or the job could not complete: a job error. */
  | 'paperclip_policy_job_failed';

/** Why a replay job failed; each is one Issue code of a paperclip_policy_job_failed error. */
export type JobFailureCode =
  | 'spawn_failed'
  | 'handshake_invalid'
  | 'frame_invalid'
  | 'frame_too_large'
  | 'reply_malformed'
  /** A success whose decision has no verdict (absent, empty or not a string): never a decision. */
  | 'reply_undecided'
  /** A frame that repeats a key: JSON.parse would read its last value, the strict reader refuses it. */
  | 'reply_duplicate_key'
  /** A state_out over MAX_STATE_OUT_CHARS. */
  | 'state_too_large'
  | 'reply_unexpected'
  | 'reply_duplicate'
  | 'reply_missing'
  | 'id_mismatch'
  | 'reply_timeout'
  | 'output_truncated'
  | 'stderr_overflow'
  | 'exit_mismatch'
  | 'bundle_rejected'
  | 'bundle_digest_mismatch';

export class PolicyError extends CodedError<PolicyErrorCode> {
  override readonly name = 'PolicyError';
}

export function isPolicyError(value: unknown): value is PolicyError {
  return value instanceof PolicyError;
}

/** A job error with one issue: the producer's breach, or what kept the job from completing. */
export function jobFailed(code: JobFailureCode, message: string, received?: unknown): PolicyError {
  return new PolicyError('paperclip_policy_job_failed', `policy replay job failed: ${message}`, [
    { code, message, component: 'policy-producer', ...(received === undefined ? {} : { received }) },
  ]);
}
