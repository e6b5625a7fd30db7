// `evals engine …`: the checks engine's commands, added to the command tree by program.ts.
// Actions lazily import their modules, like every other command.
import { Option } from 'commander';

import type { Command } from 'commander';

import { act } from '../run.js';

/** The engine's log levels (checks' LOG_LEVELS; repeated here so `evals --help` loads no engine code). */
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];

export function addEngineCommands(program: Command): void {
  program
    .command('engine')
    .summary('run the checks engine: JSON-RPC 2.0 over NDJSON on stdin/stdout')
    .description(
      [
        'Serve the checks engine protocol (version 1, release 1.1.0) on stdin/stdout: one JSON-RPC 2.0',
        'request per line in, one response per line out, in request order; logs go to stderr as JSON lines.',
        'Methods: initialize, evaluate_batch, submit_plugin_result, validate_trace_tree, query_drift,',
        'generate_user_message, shutdown. Layers 5–6 (embedding, llm_judge) need an OpenAI-compatible',
        'provider from the environment; without one they are not_evaluated, never a pass. See docs/checks-engine.md.',
      ].join(' '),
    )
    .requiredOption('--stdio', 'serve on stdin/stdout (the only transport)')
    .addOption(
      new Option('--log-level <level>', 'least severe log line written to stderr')
        .choices(LOG_LEVELS)
        .default('warn'),
    )
    .option(
      '--store <url>',
      'keep drift history in this Evalbook (sqlite:PATH or postgres://…), so query_drift sees earlier sessions; a new SQLite file is created only in a folder that exists (but sqlite:.evalbook/evalbook.sqlite makes .evalbook/); default: $ATTEST_CACHE_DIR/evalbook.sqlite when ATTEST_CACHE_DIR is set, else in memory, for this process only',
    )
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 served until shutdown or end of input · 2 usage, or an unusable provider setting in the environment · 70 internal error.',
        '',
        'Environment: EVALS_ENGINE_PROVIDER_BASE_URL, EVALS_ENGINE_PROVIDER_API_KEY, EVALS_ENGINE_JUDGE_MODEL,',
        'EVALS_ENGINE_EMBEDDING_MODEL, EVALS_ENGINE_MODEL_PRICES, EVALS_ENGINE_PROVIDER_TIMEOUT_MS,',
        'EVALS_ENGINE_PROVIDER_MAX_RETRIES, EVALS_ENGINE_PROVIDER_RETRY_DELAY_MS, EVALS_ENGINE_SESSION_MAX_JUDGE_CALLS,',
        'EVALS_ENGINE_SESSION_MAX_COST_USD, EVALS_ENGINE_SESSION_MAX_SOFT_FAILURES, EVALS_ENGINE_EVAL_TIMEOUT_MS, ATTEST_SIMULATION=1.',
        "The Attest engine's own names work too (ours win where both are set): ATTEST_OPENAI_API_KEY (alone: OpenAI,",
        'gpt-4.1, text-embedding-3-small), ATTEST_JUDGE_MODEL, ATTEST_JUDGE_PROVIDER=openai, ATTEST_EMBEDDING_PROVIDER,',
        'ATTEST_JUDGE_TIMEOUT_S, ATTEST_JUDGE_META_EVAL=true, ATTEST_BUDGET_MAX_COST (soft failures), ATTEST_CACHE_DIR',
        "(drift history there without --store), ATTEST_CONTRACTS_DIR (each batch's assertion specs and context recorded).",
        '',
        'Examples:',
        '  $ evals engine --stdio --log-level=info',
        '  $ evals engine --stdio --store sqlite:.evalbook/evalbook.sqlite   # drift across sessions',
        `  $ echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"sdk_name":"sh","sdk_version":"0","protocol_version":1}}' | evals engine --stdio`,
        '  $ ATTEST_ENGINE_PATH=$(command -v evals-engine) pytest   # the drop-in bin for Attest SDKs',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: { stdio: true; logLevel: string; store?: string }) => {
          const { runEngine } = await import('./engine.js');
          return runEngine({
            logLevel: flags.logLevel,
            ...(flags.store === undefined ? {} : { store: flags.store }),
          });
        },
        { prefix: 'evals engine: ' },
      ),
    );
}
