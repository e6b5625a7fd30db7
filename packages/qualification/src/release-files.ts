// The files a release directory must hold, in one list: what release-layout requires, and what
// `evals qualify --help` and the docs name. Dependency-free (a subpath of the package,
// `@paperclip-evals/qualification/release-files`), so the CLI's help loads nothing else.

export const SHA256SUMS_FILE = 'SHA256SUMS';
export const APP_RECORD_FILE = 'paperclip-runner-consumer-conformance.json';
export const RUNNERD_FILE_PREFIX = 'paperclip-runnerd-';

/** Every file release-layout requires, each with what it is (nothing else may be in the folder). */
export const RELEASE_FILES: readonly { readonly name: string; readonly what: string }[] = [
  { name: 'exactly one *.tgz', what: 'the packed @paperclipai/paperclip-runner tarball' },
  { name: `${RUNNERD_FILE_PREFIX}<platform>-<arch>`, what: 'the runnerd executable of this host' },
  { name: APP_RECORD_FILE, what: "the App's clean-consumer-conformance/v1 gate record" },
  { name: SHA256SUMS_FILE, what: 'the sha256 of every other file' },
];

/** "the packed … tarball (exactly one *.tgz), …": the list as a sentence. */
export function releaseFilesText(): string {
  return RELEASE_FILES.map((file) => `${file.what} (${file.name})`).join(', ');
}
