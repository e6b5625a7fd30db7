// paperclip-runnerd's entry point, bundled by scripts/build-runnerd.mjs into a Node single
// executable application. The build bakes the profile in (esbuild `define`); run unbundled, the
// profile is `debug`.
import { runRunnerd } from './cli.js';

declare const PAPERCLIP_RUNNERD_BUILD_PROFILE: 'release' | 'debug';

const buildProfile =
  typeof PAPERCLIP_RUNNERD_BUILD_PROFILE === 'undefined' ? 'debug' : PAPERCLIP_RUNNERD_BUILD_PROFILE;

runRunnerd(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  buildProfile,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `paperclip-runnerd: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
