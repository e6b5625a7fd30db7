// The unit project's guard (in-process-setup.ts): in a unit test every way to start a child process
// throws, naming the command and what to do, before anything is started.
import * as childProcess from 'node:child_process';
import { describe, expect, it } from 'vitest';

const STARTERS = {
  spawn: () => childProcess.spawn('true'),
  spawnSync: () => childProcess.spawnSync('true'),
  exec: () => childProcess.exec('true'),
  execSync: () => childProcess.execSync('true'),
  execFile: () => childProcess.execFile('true'),
  execFileSync: () => childProcess.execFileSync('true'),
  fork: () => childProcess.fork('true'),
};

describe('a unit test that starts a child process', () => {
  it.each(Object.entries(STARTERS))('throws from %s, naming the command and the way out', (name, start) => {
    expect(start).toThrow(`a unit test started a child process (${name} true)`);
    expect(start).toThrow('name the file *.e2e.test.ts or list it in E2E in vitest.config.ts');
  });
});
