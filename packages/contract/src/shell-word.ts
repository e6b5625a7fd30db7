// The one shell quoting of Evals: a command Evals prints for the user to paste (a next step, a
// check to run, a re-run) quotes each argument it did not write itself with shellWord, so a path
// with a space, a quote, a `$` or a non-ASCII letter pastes as the one argument it is (POSIX sh).
// Pure text; printing (and masking any secret in it) is the printer's job.

/**
 * A word a POSIX shell reads back as `word`: as it is when plain, else single-quoted (an empty word
 * is ''), a quote inside as '"'"' — never a backslash, which the printer's terminalText shows doubled.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** A command line of words, each shellWord-quoted: `shellCommand(['evals', 'publish', '--verify', dir])`. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
