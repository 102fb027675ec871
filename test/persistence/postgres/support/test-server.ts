/**
 * A real PostgreSQL for the tests, never a skip. First the server the machine runs
 * (`ARGUS_SUPERVISOR_TEST_DATABASE_URL`, default postgresql://postgres@127.0.0.1:5432/test);
 * when nothing answers there, a throwaway cluster from the installed binaries
 * (`ARGUS_SUPERVISOR_TEST_PG_BIN`, default /usr/lib/postgresql/15/bin): initdb into a scratch
 * folder, pg_ctl start on a free loopback port, stopped when the last test file using it is
 * done. initdb refuses to run as root, so as root the binaries run as the `postgres` user
 * (`runuser -u postgres`) and the cluster lives under /tmp (the run directory is 0700 root).
 * No binaries, no postgres user: the test fails with a sentence saying so.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { recordChildOutput } from '../../../fixtures/child-output.js';
import { recordFile, removeScratch, scratchDir } from '../../../fixtures/scratch.js';

export const DEFAULT_TEST_URL = 'postgresql://postgres@127.0.0.1:5432/test';
const PG_BIN = process.env.ARGUS_SUPERVISOR_TEST_PG_BIN || '/usr/lib/postgresql/15/bin';

export interface ThrowawayServer {
  /** URL of database `test` as user postgres (with the password when one was set). */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Whether a server answers `url` within 2 s. */
export async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let shared: { server: Promise<{ url: string; throwaway: ThrowawayServer | null }>; users: number } | null = null;

/** The URL tests use; call `releaseTestServer` once per acquire (afterAll). */
export async function acquireTestServer(): Promise<string> {
  shared ??= { server: findOrStart(), users: 0 };
  shared.users++;
  return (await shared.server).url;
}

export async function releaseTestServer(): Promise<void> {
  if (!shared || --shared.users > 0) return;
  const { server } = shared;
  shared = null;
  await (await server.catch(() => null))?.throwaway?.stop();
}

async function findOrStart(): Promise<{ url: string; throwaway: ThrowawayServer | null }> {
  const url = process.env.ARGUS_SUPERVISOR_TEST_DATABASE_URL || DEFAULT_TEST_URL;
  if (await answers(url)) return { url, throwaway: null };
  const throwaway = await startThrowawayServer();
  return { url: throwaway.url, throwaway };
}

/** A private cluster: trust auth, or scram-sha-256 on TCP with `password` for user postgres. */
export async function startThrowawayServer(options: { password?: string } = {}): Promise<ThrowawayServer> {
  const initdb = path.join(PG_BIN, 'initdb');
  if (!existsSync(initdb)) throw new Error(`no PostgreSQL answers and there is no ${initdb} to start one (install postgresql-15 or set ARGUS_SUPERVISOR_TEST_DATABASE_URL)`);
  const root = process.getuid?.() === 0;
  if (root && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) throw new Error('running as root, and runuser is missing: initdb refuses root');
  const dir = root ? await mkdtemp(path.join('/tmp', 'argus-pg-')) : await scratchDir('argus-pg-');
  if (root) await chown(dir, ...postgresIds());
  const data = path.join(dir, 'data');
  const auth = ['-A', 'trust'];
  if (options.password !== undefined) {
    const pwfile = path.join(dir, 'pwfile');
    await writeFile(pwfile, `${options.password}\n`, { mode: 0o600 });
    if (root) await chown(pwfile, ...postgresIds());
    auth.splice(0, 2, '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`);
  }
  await run(root, path.join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--no-sync', ...auth]);
  const port = await freePort();
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  await run(root, path.join(PG_BIN, 'pg_ctl'), ['-D', data, '-o', settings, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const secret = options.password !== undefined ? `:${encodeURIComponent(options.password)}` : '';
  const admin = new pg.Client({ connectionString: `postgresql://postgres${secret}@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE test');
  await admin.end();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stopNow);
    await run(root, path.join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    const log = path.join(dir, 'server.log');
    if (existsSync(log)) recordFile('children', 'throwaway-postgres.log')(readFileSync(log));
    await removeScratch(dir);
  };
  // Safety net: a worker that exits without afterAll still stops its server (postmaster.pid names it).
  const stopNow = () => {
    try {
      const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGQUIT');
    } catch {
      // already gone
    }
  };
  process.on('exit', stopNow);
  return { url: `postgresql://postgres${secret}@127.0.0.1:${port}/test`, port, stop };
}

function postgresIds(): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root, and there is no postgres user to run initdb as');
  const [, , uid, gid] = line.split(':');
  return [Number(uid), Number(gid)];
}

function run(asPostgres: boolean, command: string, args: string[]): Promise<void> {
  const [file, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const child = recordChildOutput(spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: os.tmpdir() }), `throwaway-${path.basename(command)}`);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited ${code}: ${stderr.trim().slice(0, 400)}`))));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A fresh schema name for one test file (dropped by `dropSchema`). */
export const testSchemaName = (): string => `t_${process.pid}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
