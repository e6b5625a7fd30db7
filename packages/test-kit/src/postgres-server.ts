// Test support: a real, throwaway PostgreSQL server. `initdb` into a temp dir (trust auth, superuser
// `postgres`; or with `password`, scram-sha-256 over TCP so a client must present it), `pg_ctl start` on loopback at a free port with the socket in that dir, a fresh database
// per caller; `stop()` kills it (`pg_ctl stop -m immediate`) and removes the dir. initdb refuses to run
// as root, so as root the server runs as `nobody` (via runuser) in a temp dir chowned to it.
import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { access, constants } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PostgresServer {
  readonly port: number;
  /** The superuser's password when the server was started with one (TCP then needs it). */
  readonly password?: string;
  /** A new, empty database; returns its `postgres://` URL (never with the password). */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The directory holding initdb, pg_ctl and postgres: on PATH, else the newest /usr/lib/postgresql/N/bin. */
export async function findPostgresBin(): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean))
    if ((await executable(join(dir, 'initdb'))) && (await executable(join(dir, 'pg_ctl')))) return dir;
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const dir = join('/usr/lib/postgresql', version, 'bin');
    if (await executable(join(dir, 'initdb'))) return dir;
  }
  return null;
}

/** A loopback TCP port that was free a moment ago (nothing listens on it once this resolves). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolvePort(port);
      });
    });
  });
}

const USER = 'nobody';

export interface StartPostgresOptions {
  /** Require this password (scram-sha-256) of the superuser `postgres` on TCP connections. */
  readonly password?: string;
}

/** Starts a server (about a second or two). Throws with the reason if it cannot. */
export async function startPostgres(start: StartPostgresOptions = {}): Promise<PostgresServer> {
  const bin = await findPostgresBin();
  if (bin === null)
    throw new Error('PostgreSQL binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql');
  const root = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'evalbook-pg-'));
  if (root) {
    const { stdout } = await run('id', ['-u', USER]);
    const uid = Number(stdout.trim());
    const { stdout: gidOut } = await run('id', ['-g', USER]);
    await chown(dir, uid, Number(gidOut.trim()));
  }
  const as = (command: string, args: string[]): Promise<{ stdout: string; stderr: string }> =>
    root ? run('runuser', ['-u', USER, '--', command, ...args]) : run(command, args);
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    const auth =
      start.password === undefined
        ? ['-A', 'trust']
        : ['--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${join(dir, 'pwfile')}`];
    if (start.password !== undefined)
      await writeFile(join(dir, 'pwfile'), `${start.password}\n`, { mode: 0o644 });
    await as(join(bin, 'initdb'), ['-D', data, ...auth, '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    const options = [
      `-k ${dir} -h 127.0.0.1 -p ${port}`,
      '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
    ].join(' ');
    await as(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      options,
      'start',
    ]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const userinfo =
    start.password === undefined ? 'postgres' : `postgres:${encodeURIComponent(start.password)}`;
  const admin = `postgres://${userinfo}@127.0.0.1:${port}/postgres`;
  return {
    port,
    ...(start.password === undefined ? {} : { password: start.password }),
    async createDatabase(name: string): Promise<string> {
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    async stop(): Promise<void> {
      try {
        await as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
