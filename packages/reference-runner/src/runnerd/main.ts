// paperclip-runnerd's entry point, bundled by scripts/build-runnerd.mjs into a Node single
// executable application.
import { runRunnerd } from './cli.js';

runRunnerd(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
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
