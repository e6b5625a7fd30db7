// Public surface of @paperclip-evals/qualification: explicit named exports only. Only what other
// packages import (pinned by scripts/public-surface.test.ts); the package's own tests import its
// `src/` files directly.
export { qualifyRelease } from './qualify.js';
export type { QualifyReleaseOptions } from './qualify.js';
export { QUALIFICATION_CHECK_IDS, qualificationRecordIssues, writeQualificationRecord } from './record.js';
export type { QualificationRecord } from './record.js';
export { MAX_RELEASE_FILE_BYTES, SHA256SUMS_FILE, releaseDirIssue } from './release-dir.js';
export { extractTarball } from './tarball.js';
export { PINNED_PNPM, pnpmCommand } from './processes.js';
export { installConsumer } from './consumer.js';
export { RUNNER_PACKAGE_NAME } from './judgements.js';
export { completeConsumerRequirements, loadEvalsConsumerRequirements } from './consumer-requirements.js';
