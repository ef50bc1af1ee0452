/**
 * What a turn costs Redis itself, as instructions: redis-server under valgrind's callgrind, counted
 * only while `turns` turns run through the chat handler in this process (a new thread each, then
 * the next turn on each), and INFO commandstats for what it ran. Instructions hold on a busy machine
 * where Redis's CPU time moves by a third between runs. Then what a commit script's arguments cost
 * Redis (each is made a Lua string, every byte hashed), and, with CLIENT=1, what the turn costs the
 * app's process (the handler, node-redis, serializing) beside the stores bench's floor (the memory
 * store and one awaited PING per commit): this script again, under callgrind, against a plain
 * redis-server (a few minutes). Needs valgrind.
 *
 * Run: npm run build, then tsx bench/redisInstructions.ts [turns] (KEEP_CALLGRIND=<path prefix>: keep the profiles; CLIENT=1: the app's side too)
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createClient } from 'redis'
import { createChatHandler, memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { countedIn, nodeUnderCallgrind } from './callgrind.ts'
import { freePort, startRedis } from '../test/services/redis.ts'
import { weather, weatherModel } from './workload.ts'

const turns = Number(process.argv[2] ?? 200)
/** Set in the app's process this script starts under callgrind (CLIENT=1): it runs the turns, told when from here. */
const APP_SIDE = process.env.REDIS_INSTRUCTIONS_APP

type Turn = (threadId?: string) => Promise<string>
/** A weather turn through the chat handler on `store`; the thread's id. */
function turnOn(store: ThreadStore): Turn {
  const handler = createChatHandler({ model: weatherModel, tools: [weather], store })
  return async (threadId) => {
    const body = JSON.stringify(threadId ? { threadId, message: 'weather in Paris' } : { message: 'weather in Paris' })
    const text = await (await handler(new Request('http://bench.local/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))).text()
    if (!text.includes('"RUN_FINISHED"')) throw new Error(`turn failed: ${text.slice(-300)}`)
    return threadId ?? /"threadId":"([^"]+)"/.exec(text)![1]!
  }
}

if (APP_SIDE !== undefined) {
  // The app's process: each store's turns after a warm-up (V8 compiles a function called a few
  // times a turn only after thousands), counted between the lines it prints and the parent's go.
  const client = await createClient({ url: APP_SIDE }).connect()
  const floor = (): ThreadStore => {
    const memory = memoryStore()
    return { ...memory, commit: async (commit) => (await client.sendCommand(['PING']), memory.commit(commit)) }
  }
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
  const counted = async (name: string, work: () => Promise<unknown>) => {
    console.log(`ready ${name}`)
    await lines.next()
    await work()
    await new Promise((resolve) => setTimeout(resolve, 20)) // a run's last log write lands
    console.log(`done ${name}`)
    await lines.next()
  }
  for (const [name, store] of [['redis', redisStore({ client, prefix: 'app:' })], ['memory + PING', floor()]] as const) {
    const turn = turnOn(store)
    for (let i = 0; i < 1000; i++) await turn(await turn())
    const threads: string[] = []
    await counted(`${name}, new thread`, async () => {
      for (let i = 0; i < turns; i++) threads.push(await turn())
    })
    await counted(`${name}, next turn`, async () => {
      for (const threadId of threads) await turn(threadId)
    })
  }
  console.log('end')
  await client.quit()
  process.exit(0)
}
const out = mkdtempSync(join(tmpdir(), 'redis-instructions-'))
const port = await freePort()
const server = spawn(
  'valgrind',
  ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}/callgrind.%p`, '/usr/bin/redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', out],
  { stdio: ['ignore', 'pipe', 'ignore'] },
)
try {
  await new Promise<void>((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`valgrind exited with ${code} (is it installed?)`)))
    let printed = ''
    server.stdout!.on('data', (data: Buffer) => {
      printed += String(data)
      if (/Ready to accept connections/.test(printed)) resolve()
    })
  })
  const client = await createClient({ url: `redis://127.0.0.1:${port}` }).connect()
  const turn = turnOn(redisStore({ client }))
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50))
  for (let i = 0; i < 50; i++) await turn(await turn())
  await settle()
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(server.pid)], { stdio: 'ignore' })
  /** Instructions Redis ran while `work` ran, and the profile's file. */
  const instructionsWhile = async (work: () => Promise<unknown>) => {
    control('-i', 'on')
    control('-z')
    await work()
    await settle()
    control('-d') // before instrumentation stops: stopping it drops what it counted
    control('-i', 'off')
    // The newest dump: its totals are what ran since the zero.
    const part = (file: string) => Number(/\.(\d+)$/.exec(file.slice('callgrind.'.length))?.[1] ?? 0)
    const newest = readdirSync(out).filter((file) => file.startsWith('callgrind.')).sort((a, b) => part(b) - part(a))[0]!
    return { instructions: Number(/^summary:\s*(\d+)/m.exec(readFileSync(join(out, newest), 'utf8'))?.[1] ?? 0), newest }
  }
  const counted = async (name: string, work: () => Promise<unknown>) => {
    await client.sendCommand(['CONFIG', 'RESETSTAT'])
    const { instructions, newest } = await instructionsWhile(work)
    const stats = String(await client.sendCommand(['INFO', 'commandstats']))
    // A commit script's own cost: EVALSHA's inclusive count (callgrind_annotate), per call.
    const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', join(out, newest)], { encoding: 'utf8', maxBuffer: 64 << 20 })
    const evalsha = Number(/^\s*([\d,]+) .*:evalShaCommand /m.exec(annotated)?.[1]?.replaceAll(',', '') ?? 0)
    const scripts = Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0)
    if (process.env.KEEP_CALLGRIND) execFileSync('cp', [join(out, newest), `${process.env.KEEP_CALLGRIND}.${name.trim().replace(' ', '-')}`])
    const calls = [...stats.matchAll(/cmdstat_(\w+):calls=(\d+),usec=(\d+)/g)].filter(([, command]) => command !== 'config').map(([, command, count]) => `${command!.toUpperCase()} ${(Number(count) / turns).toFixed(2)}`)
    console.log(`  ${name}: ${(instructions / turns / 1000).toFixed(1)}K instructions per turn in Redis, ${(evalsha / scripts / 1000).toFixed(1)}K per commit script (EVALSHA, inclusive); commands per turn: ${calls.join(', ')}`)
  }
  console.log(`redis-server under callgrind, ${turns} turns, one at a time, the scripted weather turn (3 commits):`)
  const threads: string[] = []
  await counted('new thread', async () => {
    for (let i = 0; i < turns; i++) threads.push(await turn())
  })
  await counted('next turn ', async () => {
    for (const threadId of threads) await turn(threadId)
  })
  // What handing a script its arguments costs Redis: each becomes a Lua string (hashed over every
  // byte) in a table. A script that does nothing, sent none, 16 short ones, then one of 4 KB.
  const sha = String(await client.sendCommand(['SCRIPT', 'LOAD', 'return 1']))
  const perScript = async (args: () => string[]) => {
    const { instructions } = await instructionsWhile(async () => {
      for (let i = 0; i < 200; i++) await client.sendCommand(['EVALSHA', sha, '0', ...args()])
    })
    return instructions / 200
  }
  let unique = 0
  const arg = (length: number) => (unique++).toString(36).padEnd(length, '-')
  const ping = (await instructionsWhile(async () => {
    for (let i = 0; i < 200; i++) await client.sendCommand(['PING'])
  })).instructions / 200
  const none = await perScript(() => [])
  const short = await perScript(() => Array.from({ length: 16 }, () => arg(8)))
  const long = await perScript(() => [arg(4096)])
  const perArg = (short - none) / 16
  console.log(
    `  a script's arguments: ${(none / 1000).toFixed(1)}K instructions for EVALSHA of a script that does nothing, +${(perArg / 1000).toFixed(2)}K an argument, +${((long - none - perArg) / 4088).toFixed(1)} a byte (a PING: ${(ping / 1000).toFixed(1)}K)`,
  )
  await client.quit()
} finally {
  server.removeAllListeners('exit')
  server.kill('SIGKILL')
  rmSync(out, { recursive: true, force: true })
}

if (process.env.CLIENT === '1') {
  // The app's side: this script again, under callgrind, its turns against a plain redis-server.
  const redis = await startRedis()
  const dir = mkdtempSync(join(tmpdir(), 'redis-app-instructions-'))
  const app = spawn('valgrind', [...nodeUnderCallgrind(dir), '--import', 'tsx', fileURLToPath(import.meta.url), String(turns)], {
    env: { ...process.env, REDIS_INSTRUCTIONS_APP: redis.url, CLIENT: '' },
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(app.pid)], { stdio: 'ignore' })
  const k = (count: number) => `${(count / turns / 1000).toFixed(1)}K`
  const results = new Map<string, number>()
  try {
    console.log(`the app's process under callgrind (the handler, node-redis, serializing), without V8's compiler, ${turns} turns, one at a time, after 2,000 uncounted:`)
    for await (const line of createInterface({ input: app.stdout! })) {
      if (line.startsWith('ready ')) {
        control('-z')
        control('-i', 'on')
        app.stdin!.write('go\n')
      } else if (line.startsWith('done ')) {
        control('-d')
        control('-i', 'off')
        const { total, compiler, collector } = countedIn(dir)
        for (const name of readdirSync(dir)) rmSync(join(dir, name))
        const name = line.slice('done '.length)
        // The mutator: when a full collection falls moves the collector's count by hundreds of K a turn.
        const mutator = total - compiler - collector
        results.set(name, mutator)
        // The floor runs after the store: the store's count for the same line is known by then.
        const store = name.startsWith('redis') ? undefined : results.get(name.replace(/^memory \+ PING/, 'redis'))
        const beyond = store === undefined ? '' : `: the Redis store +${k(store - mutator)} beyond it`
        console.log(`  ${name.padEnd(26)} ${k(mutator)} instructions per turn (the collector ${k(collector)} more)${beyond}`)
        app.stdin!.write('next\n')
      } else if (line === 'end') break
    }
  } finally {
    app.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    await redis.stop()
  }
}
