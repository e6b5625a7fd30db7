// Entry point of the `evals-engine` bin: the checks engine's stdio server for clients that launch a
// bare executable with only --log-level=<level>. (Placeholder until the checks engine lands.)
export async function engineMain(argv: readonly string[]): Promise<void> {
  await Promise.resolve();
  process.stderr.write(`evals-engine: not implemented yet (${String(argv.length)} args)\n`);
  process.exitCode = 70;
}
