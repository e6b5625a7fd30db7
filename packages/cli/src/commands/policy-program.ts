// `evals policy …`: policy evaluate (the producer) and policy replay (the consumer), added to the
// command tree by program.ts. Actions lazily import their modules, like every other command.
import type { Command } from 'commander';

export function addPolicyCommands(program: Command): void {
  program.command('policy').description('policy replay over the evaluate NDJSON protocol');
}
