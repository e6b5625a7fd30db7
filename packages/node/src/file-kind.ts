// What kind of entry a path is (from its lstat, fstat or directory entry), and how a message says it:
// the one wording every reader that refuses a non-regular file uses, so a refusal names what it
// found (a directory, a FIFO, a socket, a device, a symbolic link) and gives advice that fits.

/** The kinds of file system entry, as lstat tells them apart. */
export const FILE_KINDS = [
  'file',
  'directory',
  'symlink',
  'fifo',
  'socket',
  'character_device',
  'block_device',
] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/**
 * Each kind as a message says it, its article included ("an", never "a other"): one phrase per kind,
 * so a kind added to the list cannot be worded until it has one.
 */
export const FILE_KIND_PHRASE: Readonly<Record<FileKind, string>> = {
  file: 'a regular file',
  directory: 'a directory',
  symlink: 'a symbolic link',
  fifo: 'a FIFO (named pipe)',
  socket: 'a socket',
  character_device: 'a character device',
  block_device: 'a block device',
};

/** What to do about an entry of each kind where a regular file was expected. */
export const NOT_REGULAR_ADVICE: Readonly<Record<FileKind, string>> = {
  file: 'name a regular file',
  directory: 'name a file inside it, not the folder',
  symlink: 'name the file it points to (symbolic links are not followed)',
  fifo: 'name a regular file (a FIFO is never read: it could block forever)',
  socket: 'name a regular file (a socket is never read)',
  character_device: 'name a regular file (a device is never read)',
  block_device: 'name a regular file (a device is never read)',
};

/** The stat methods fileKindOf reads: a Stats or a Dirent. */
export interface KindOfEntry {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
}

/** The kind of an entry from its stats or directory entry. */
export function fileKindOf(entry: KindOfEntry): FileKind {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isFIFO()) return 'fifo';
  if (entry.isSocket()) return 'socket';
  return entry.isCharacterDevice() ? 'character_device' : 'block_device';
}

/** "<subject> is a directory, not a regular file": the wording of every such refusal. */
export function notRegularMessage(subject: string, kind: FileKind): string {
  return `${subject} is ${FILE_KIND_PHRASE[kind]}, not a regular file`;
}
