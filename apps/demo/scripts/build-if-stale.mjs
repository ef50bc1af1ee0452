// `npm run demo` builds the page only when something it is built from changed since the last
// build (the demo's page, its config, the two packages' sources, the lockfile): a first start
// builds (about 6 s on two cores), the next ones start the server at once. Plain Node, no tsx:
// this check costs a few milliseconds.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const demo = fileURLToPath(new URL('..', import.meta.url))
const repo = join(demo, '..', '..')
const inputs = [
  join(demo, 'src'),
  join(demo, 'index.html'),
  join(demo, 'vite.config.ts'),
  join(demo, 'package.json'),
  join(repo, 'packages', 'ai', 'src'),
  join(repo, 'packages', 'ai-react', 'src'),
  join(repo, 'package-lock.json'),
]

/** The newest modification time under `path` (0 when it does not exist). */
function newest(path) {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs)
}

const built = newest(join(demo, 'dist', 'index.html'))
if (built === 0 || inputs.some((input) => newest(input) > built)) {
  console.log(built === 0 ? '[demo] Building the page (first start)…' : '[demo] The page changed since its last build: building it again…')
  const result = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: demo, stdio: 'inherit' })
  process.exit(result.status ?? 1)
}
