import type { LoggedEvent } from '../thread/threadStore.ts'

// A run's event log on Redis: one list per run, its event of seq n at index n - 1, so a write
// appends its events' JSON as it is (no seq in a member, no per-event command) and a reader reads
// a range by index. A write Redis lost leaves a gap of '' entries (a later batch pads it), which
// readers skip, so the events after it keep their numbers, and which a late batch still fills (the
// first event of a seq is kept: an entry is set only while it is ''). After the run's last event
// comes `END`; a batch that lands after it (one the release carried too) fills only gaps, and moves
// neither the end nor the log's retention. An event's data is its JSON text, never '' nor `END`.
//
// Earlier versions (0.1) kept a run's log in a sorted set (`…:events`, members `<seq>:<data>`) and an
// `…:end` key; readers still read those (`readSortedSet`), for the runs such an instance streams
// during a rolling upgrade.

/** What follows a run's last event in its list. */
export const END = 'end'

/**
 * Lua that writes the events at ARGV[from..] (as `pushEventArgs` lays them out) to the list `log`,
 * giving it `retentionMs` to live once ended, else `liveMs`. A block, not a function: a script
 * makes its functions anew each time it runs. (A count or seq is read by arithmetic on its text,
 * `ARGV[i] + 0`: `tonumber` costs a global lookup and a call more.)
 */
export const logEventsLua = (log: string, from: string, retentionMs: number, liveMs: number) => `
do
  local log, from = ${log}, ${from}
  -- The run's last events end with the end marker (an event's data is never the marker).
  local final = #ARGV >= from and ARGV[#ARGV] == '${END}'
  local last = final and #ARGV - 1 or #ARGV
  -- One run of consecutive seqs (a live run's next batch) comes as its first seq and its events;
  -- any other batch as '0', then each run's first seq, count and events.
  local single = from < last and ARGV[from] ~= '0'
  local length, logged = 0, false
  -- One run: pushed in one go (its end marker too), and kept if that put its first at index
  -- first - 1 (the log held every event before it, and none after); else the push is undone and
  -- each event looked at, below.
  if single then
    ${pushArgsLua('log', 'from + 1', '#ARGV', 'length')}
    length = length - (#ARGV - from)
    logged = length == ARGV[from] - 1
    if logged then redis.call('PEXPIRE', log, final and '${retentionMs}' or '${liveMs}')
    elseif length == 0 then redis.call('DEL', log)
    else redis.call('LTRIM', log, 0, length - 1) end
  else
    length = redis.call('LLEN', log)
  end
  -- Some are logged already (a batch sent again) or fill a gap, or there are none: a look at each.
  local ended = logged or (length > 0 and redis.call('LINDEX', log, -1) == '${END}')
  if not logged then
    local fresh = {}
    local at = single and from or from + 1
    while at <= last do
      local seq = ARGV[at] + 0
      local n = single and last - at or ARGV[at + 1] + 0
      local first = single and at + 1 or at + 2
      for i = first, first + n - 1 do
        if seq <= length then
          if redis.call('LINDEX', log, seq - 1) == '' then redis.call('LSET', log, seq - 1, ARGV[i]) end
        elseif not ended then
          while length + #fresh < seq - 1 do fresh[#fresh + 1] = '' end
          fresh[#fresh + 1] = ARGV[i]
        end
        seq = seq + 1
      end
      at = first + n
    end
    if not ended then
      if final then fresh[#fresh + 1] = '${END}' end
      for i = 1, #fresh, 1000 do redis.call('RPUSH', log, unpack(fresh, i, math.min(i + 999, #fresh))) end
      redis.call('PEXPIRE', log, final and '${retentionMs}' or '${liveMs}')
    end
  end
end
`

/** Lua: RPUSH ARGV[from..to] to `key` a thousand at a time (Lua's stack holds no more), leaving the list's length in `length` (unset when there are none). */
export const pushArgsLua = (key: string, from: string, to: string, length: string) =>
  `for i = ${from}, ${to}, 1000 do ${length} = redis.call('RPUSH', ${key}, unpack(ARGV, i, math.min(i + 999, ${to}))) end`

/**
 * The arguments `logEventsLua` reads: the events of one run of consecutive seqs as its first seq
 * and their data; any others as '0', then each run's first seq, its count and its events' data;
 * then `END` for the run's last. (Each argument costs Redis about 1.5K instructions to hand to Lua:
 * a live batch carries no count, and the marker says it is the last.)
 */
export function pushEventArgs(args: string[], events: readonly LoggedEvent[], final: boolean): void {
  let runs = events.length > 0 ? 1 : 0
  for (let i = 1; i < events.length; i++) if (events[i]!.seq !== events[i - 1]!.seq + 1) runs++
  if (runs === 1) {
    args.push(String(events[0]!.seq))
    for (const event of events) args.push(event.data)
  } else if (runs > 1) {
    args.push('0')
    let start = args.length
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!
      if (i === 0 || event.seq !== events[i - 1]!.seq + 1) {
        if (i > 0) args[start + 1] = String(args.length - start - 2)
        start = args.length
        args.push(String(event.seq), '')
      }
      args.push(event.data)
    }
    args[start + 1] = String(args.length - start - 2)
  }
  if (final) args.push(END)
}

type Send = (args: string[]) => Promise<unknown>
type Read = { readonly events: LoggedEvent[]; readonly ended: boolean } | undefined

/**
 * The events of the list `key` after seq `after`, at most `limit`; `undefined` when the list does
 * not exist. A page that held gaps reads on, so a reader is never handed an empty page while
 * events follow.
 */
export async function readList(send: Send, key: string, after: number, limit?: number): Promise<Read> {
  const events: LoggedEvent[] = []
  let from = Math.max(0, after)
  for (;;) {
    // One entry past the page: the end marker, or an event saying there is more.
    const to = limit === undefined ? -1 : from + limit - events.length
    const items = (await send(['LRANGE', key, String(from), String(to)])) as string[]
    for (let i = 0; i < items.length; i++) {
      const data = items[i]!
      if (data === END) return { events, ended: true }
      if (data === '') continue
      if (events.length === limit) return { events, ended: false }
      events.push({ seq: from + i + 1, data })
    }
    if (to === -1 || items.length < to - from + 1) break
    from = to + 1
  }
  if (events.length > 0) return { events, ended: false }
  // Nothing after `after`: the list's last entry says whether it exists, and whether it ended
  // (a reader asking past the end of an ended log is told so, not left waiting).
  const last = (await send(['LINDEX', key, '-1'])) as string | null
  return last == null ? undefined : { events, ended: last === END }
}

/** Whether the list `key` holds events after seq `after`, or its end. */
export const listHasMore = async (send: Send, key: string, after: number) => Number(await send(['LLEN', key])) > after

/** A run's log as earlier versions (0.1) kept it: a sorted set of `<seq>:<data>` scored by seq, and an end marker. */
export async function readSortedSet(send: Send, [events, end]: readonly [string, string], after: number, limit?: number): Promise<Read> {
  const page = limit === undefined ? [] : ['LIMIT', '0', String(limit + 1)]
  const [items, ended] = await Promise.all([send(['ZRANGEBYSCORE', events, `(${Math.max(0, after)}`, '+inf', ...page]) as Promise<string[]>, send(['EXISTS', end])])
  if (items.length === 0 && Number(ended) !== 1 && Number(await send(['EXISTS', events])) === 0) return undefined
  const more = limit !== undefined && items.length > limit
  const read = (more ? items.slice(0, limit) : items).map((item) => {
    const colon = item.indexOf(':')
    return { seq: Number(item.slice(0, colon)), data: item.slice(colon + 1) }
  })
  return { events: read, ended: Number(ended) === 1 && !more }
}

/** Whether a sorted-set log holds events after seq `after`, or its end. */
export async function sortedSetHasMore(send: Send, [events, end]: readonly [string, string], after: number): Promise<boolean> {
  const [newer, ended] = await Promise.all([send(['ZCOUNT', events, `(${after}`, '+inf']), send(['EXISTS', end])])
  return Number(newer) > 0 || Number(ended) === 1
}
