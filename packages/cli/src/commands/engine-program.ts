// `evals engine …`: the checks engine's commands, added to the command tree by program.ts.
// Actions lazily import their modules, like every other command.
import type { Command } from 'commander';

export function addEngineCommands(program: Command): void {
  program.command('engine').description('the checks engine (JSON-RPC 2.0 over NDJSON stdio)');
}
