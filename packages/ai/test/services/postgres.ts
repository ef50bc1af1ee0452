import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './redis.ts'

// A throwaway PostgreSQL: initdb in a temp dir, pg_ctl start on a free port, stop and delete after.
// PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.

const BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin'

export interface PostgresServer {
  readonly connectionString: string
  stop(): Promise<void>
  /** Stops the server at once (every connection is cut, as in a crash) and starts it again on the same port, data kept. */
  restart(): Promise<void>
  /** Stops the server at once; `up` starts it again on the same port, data kept. */
  down(): Promise<void>
  up(): Promise<void>
  /** SIGSTOP to the server and every backend: connections hang, new ones wait, until `thaw`. */
  freeze(): void
  thaw(): void
}

export interface PostgresServerOptions {
  /**
   * Flush WAL to disk as a stock server does (`fsync=on`). Off by default: the tests' commits then
   * skip the disk, which changes no behaviour they check. A benchmark of what a user's server costs sets it.
   */
  readonly fsync?: boolean
}

export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  if (!existsSync(join(BIN, 'initdb'))) throw new Error(`${BIN}/initdb is missing: run "npm run setup:services" (it installs Debian's postgresql)`)
  const root = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-pg-'))
  const data = join(dir, 'data')
  const asOwner = (command: string, args: string[]) =>
    root ? execFileSync('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args], { stdio: 'pipe' }) : execFileSync(join(BIN, command), args, { stdio: 'pipe' })
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
    chownSync(dir, uid, gid)
  }
  const port = await freePort()
  asOwner('initdb', ['-D', data, '--auth=trust', '-U', 'postgres', '--encoding=UTF8', '--no-sync'])
  const start = () => asOwner('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync ? 'on' : 'off'}`, 'start'])
  start()
  /** The postmaster and its children (backends, checkpointer, ...). */
  const processes = () => {
    const postmaster = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim()
    const children = execFileSync('pgrep', ['-P', postmaster], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().split('\n').filter(Boolean)
    return [postmaster, ...children].map(Number)
  }
  const signal = (name: NodeJS.Signals) => {
    for (const pid of processes()) process.kill(pid, name)
  }
  return {
    connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      try {
        asOwner('pg_ctl', ['-D', data, '-m', 'immediate', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
    restart: async () => {
      asOwner('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      start()
    },
    down: async () => void asOwner('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    up: async () => void start(),
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
  }
}
