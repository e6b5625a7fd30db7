// String.prototype.isWellFormed (ES2024) is in Node 20, but TypeScript's ES2023 lib does not declare
// it. Modules that call it import this file, so the declaration travels with them.
declare global {
  interface String {
    /** False when the string holds an unpaired UTF-16 surrogate. */
    isWellFormed(): boolean;
  }
}

export {};
