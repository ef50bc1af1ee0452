/**
 * What a turn costs Redis itself, as instructions: redis-server under valgrind's callgrind, counted
 * only while `turns` turns run through the chat handler in this process (a new thread each, then
 * the next turn on each), and INFO commandstats for what it ran. Instructions hold on a busy machine
 * where Redis's CPU time moves by a third between runs. Needs valgrind.
 *
 * Run: npm run build, then tsx bench/redisInstructions.ts [turns] (KEEP_CALLGRIND=<path prefix>: keep the profiles)
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'
import { createChatHandler } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { freePort } from '../test/services/redis.ts'
import { weather, weatherModel } from './workload.ts'

const turns = Number(process.argv[2] ?? 200)
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
  const handler = createChatHandler({ model: weatherModel, tools: [weather], store: redisStore({ client }) })
  const turn = async (threadId?: string): Promise<string> => {
    const body = JSON.stringify(threadId ? { threadId, message: 'weather in Paris' } : { message: 'weather in Paris' })
    const text = await (await handler(new Request('http://bench.local/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))).text()
    if (!text.includes('"RUN_FINISHED"')) throw new Error(`turn failed: ${text.slice(-300)}`)
    return threadId ?? /"threadId":"([^"]+)"/.exec(text)![1]!
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50))
  for (let i = 0; i < 50; i++) await turn(await turn())
  await settle()
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(server.pid)], { stdio: 'ignore' })
  const counted = async (name: string, work: () => Promise<unknown>) => {
    await client.sendCommand(['CONFIG', 'RESETSTAT'])
    control('-i', 'on')
    control('-z')
    await work()
    await settle()
    control('-d') // before instrumentation stops: stopping it drops what it counted
    control('-i', 'off')
    const stats = String(await client.sendCommand(['INFO', 'commandstats']))
    // The newest dump: its totals are what ran since the zero.
    const part = (file: string) => Number(/\.(\d+)$/.exec(file.slice('callgrind.'.length))?.[1] ?? 0)
    const newest = readdirSync(out).filter((file) => file.startsWith('callgrind.')).sort((a, b) => part(b) - part(a))[0]!
    const instructions = Number(/^summary:\s*(\d+)/m.exec(readFileSync(join(out, newest), 'utf8'))?.[1] ?? 0)
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
  await client.quit()
} finally {
  server.removeAllListeners('exit')
  server.kill('SIGKILL')
  rmSync(out, { recursive: true, force: true })
}
