import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'

// An MCP App in the demo chat: `show_rooms` renders its result as a room picker (an ext-apps `App`,
// in the chat's sandboxed iframe), and the picker's own call of `book_room` waits for the user's
// approval in the chat like any call. Both are server tools: the view's HTML is read here, on demand.

const require = createRequire(import.meta.url)

/** Stored so the e2e suite can check what the view booked. */
export const roomBookings: string[] = []

const ROOMS = ['Atlas', 'Borealis', 'Cirrus']

/**
 * ext-apps' `App` with its dependencies, inlined into the view (its CSP allows no script from
 * elsewhere): the bundle's closing `export { … }` becomes constants the view's script reads.
 */
async function extAppsInline(): Promise<string> {
  const bundle = await readFile(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8')
  const exported = /export\s*\{([^}]*)\}\s*;?\s*(\/\/[^\n]*)?\s*$/.exec(bundle)
  if (!exported) throw new Error('ext-apps: the bundle does not end with its exports')
  const names = exported[1]!.split(',').map((entry) => entry.trim().split(/\s+as\s+/))
  const consts = names.map(([local, name]) => `${name ?? local}=${local}`).join(',')
  return `${bundle.slice(0, exported.index)};const ${consts};`
}

/** The view: the free rooms, a button per room that books it through the chat, and what its sandbox lets it reach (`probe`: a URL the page could fetch). */
async function roomsView(probe: string): Promise<string> {
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<style>
  :root { color-scheme: light; font: 14px/1.4 system-ui, sans-serif; }
  :root[data-theme='dark'] { color-scheme: dark; background: #1d1f24; color: #eee; }
  main { padding: 12px; }
  ul { list-style: none; padding: 0; display: flex; gap: 8px; }
  button { font: inherit; padding: 6px 12px; border-radius: 6px; border: 1px solid #8884; cursor: pointer; }
  small { color: #888; }
</style>
</head>
<body>
<main>
  <strong id="title">Free rooms</strong>
  <ul id="rooms"></ul>
  <p id="booked" role="status"></p>
  <small id="probe"></small>
</main>
<script type="module">
${await extAppsInline()}
const $ = (id) => document.getElementById(id)
const app = new App({ name: 'Room picker', version: '1.0.0' }, {}, { autoResize: true })
app.ontoolinput = ({ arguments: args }) => { $('title').textContent = 'Free rooms on ' + (args?.day ?? 'the day') }
app.ontoolresult = (result) => {
  $('rooms').replaceChildren(...(result.structuredContent?.rooms ?? []).map((room) => {
    const item = document.createElement('li')
    const button = document.createElement('button')
    button.textContent = 'Book ' + room
    button.onclick = () => book(room)
    item.append(button)
    return item
  }))
}
app.onhostcontextchanged = (context) => { if (context.theme) document.documentElement.dataset.theme = context.theme }
async function book(room) {
  $('booked').textContent = 'Booking ' + room + '…'
  const result = await app.callServerTool({ name: 'book_room', arguments: { room } })
  $('booked').textContent = result.isError ? 'Not booked: ' + (result.content?.[0]?.text ?? '') : 'Booked ' + result.structuredContent.room
}
// What the sandbox lets this view reach: the chat's server, cookies, the page around it.
const tries = [
  fetch(${JSON.stringify(probe)}, { mode: 'no-cors' }).then(() => 'network: reached', () => 'network: blocked'),
  Promise.resolve().then(() => { try { return 'cookies: ' + (document.cookie, 'readable') } catch { return 'cookies: blocked' } }),
  Promise.resolve().then(() => { try { return 'parent: ' + (window.parent.document ? 'reachable' : 'blocked') } catch { return 'parent: blocked' } }),
]
Promise.all(tries).then((said) => { $('probe').textContent = said.join(' · ') })
await app.connect()
const context = app.getHostContext?.()
if (context?.theme) document.documentElement.dataset.theme = context.theme
</script>
</body>
</html>`
}

export const showRooms = toolDefinition({
  name: 'show_rooms',
  title: 'Free rooms',
  description: 'Show the free meeting rooms of a day in a picker the user books from',
  inputSchema: v.object({ day: v.pipe(v.string(), v.minLength(1)) }),
  outputSchema: v.object({ rooms: v.array(v.string()) }),
  metadata: { icon: 'calendar' },
  // `html` is read when a host asks; `probe` is this server's own catalog, which the view's CSP (none declared) must block.
  app: { uri: 'ui://demo/rooms.html', html: () => roomsView(`http://127.0.0.1:${process.env.PORT ?? 3000}/api/tools`), prefersBorder: true },
}).server(async () => ({ rooms: ROOMS }))

export const bookRoom = toolDefinition({
  name: 'book_room',
  title: 'Book a room',
  description: 'Book a meeting room',
  inputSchema: v.object({ room: v.picklist(ROOMS) }),
  outputSchema: v.object({ room: v.string() }),
  needsApproval: (input) => ({ reason: `Books ${input.room}` }),
  metadata: { icon: 'calendar' },
}).server(async ({ room }) => {
  roomBookings.push(room)
  return { room }
})
