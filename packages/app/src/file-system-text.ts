// How a failed file system call reads in a message: the path first, then what happened and its code.
// One rendering for every workflow's message and the CLI's diagnostics.

/** "ENOENT: no such file or directory, open 'x.yaml'" → "x.yaml: no such file or directory (ENOENT)". */
export function fileSystemText(error: NodeJS.ErrnoException): string {
  const what = error.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
  return error.path === undefined ? error.message : `${error.path}: ${what} (${error.code ?? error.syscall})`;
}
