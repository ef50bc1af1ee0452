import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryStore, type ThreadHead } from '@toolgate/ai/server'

const head = (id: string, extra: Partial<ThreadHead> = {}): ThreadHead => ({
  id,
  version: 1,
  messageCount: 0,
  bytes: 0,
  resolvedInterruptIds: [],
  createdAt: 0,
  updatedAt: 0,
  ...extra,
})

describe('memoryStore', () => {
  afterEach(() => vi.useRealTimers())

  it('is a compare-and-set on the version', async () => {
    const store = memoryStore()
    expect(await store.commit({ head: head('a'), append: [] })).toBe(true)
    expect(await store.commit({ head: head('a'), append: [] })).toBe(false)
    expect(await store.commit({ head: head('a', { version: 2 }), append: [] })).toBe(true)
    expect(await store.head('a')).toMatchObject({ version: 2, id: 'a' })
  })

  it('forgets the least recently used thread beyond maxThreads', async () => {
    const store = memoryStore({ maxThreads: 2 })
    await store.commit({ head: head('a'), append: [] })
    await store.commit({ head: head('b'), append: [] })
    await store.head('a') // a is now the most recently used
    await store.commit({ head: head('c'), append: [] })
    expect(await store.head('b')).toBeUndefined()
    expect(await store.head('a')).toBeDefined()
    expect(await store.head('c')).toBeDefined()
  })

  it('never evicts a thread that a run holds', async () => {
    const store = memoryStore({ maxThreads: 1 })
    await store.commit({ head: head('held', { activeRun: { runId: 'r', startedAt: 0, renewedAt: 0, fromMessage: 0 } }), append: [] })
    await store.commit({ head: head('b'), append: [] })
    expect(await store.head('held')).toBeDefined()
  })

  it('forgets a thread left idle longer than idleTtlMs', async () => {
    vi.useFakeTimers()
    const store = memoryStore({ idleTtlMs: 1000 })
    await store.commit({ head: head('a'), append: [] })
    vi.advanceTimersByTime(500)
    expect(await store.head('a')).toBeDefined()
    vi.advanceTimersByTime(1001)
    expect(await store.head('a')).toBeUndefined()
    expect(await store.commit({ head: head('a', { version: 2 }), append: [] })).toBe(false)
  })

  it('logs a batch of any length: a release carrying a long run\'s unlogged events is one batch', async () => {
    const store = memoryStore()
    const events = Array.from({ length: 300_000 }, (_, index) => ({ seq: index + 1, data: '{"type":"TEXT_MESSAGE_CONTENT"}' }))
    await store.events!.append('run-long', events, true)
    const read = await store.events!.read('run-long', 299_998)
    expect(read).toEqual({ events: events.slice(299_998), ended: true })
  })

  it('gives back each logged event exactly as it was written: any text, any length, in batches of any size', async () => {
    const store = memoryStore()
    const texts = ['{"delta":"plain"}', '{"delta":"Grüße, 東京 🌍"}', '\uFEFF{"bom":"kept"}', '', JSON.stringify({ delta: 'x'.repeat(50_000) }), JSON.stringify({ delta: '\ud800 alone' }), '{"delta":"é"}']
    const events = texts.map((data, index) => ({ seq: index + 1, data }))
    await store.events!.append('run-text', events.slice(0, 1), false)
    await store.events!.append('run-text', events.slice(1, 5), false)
    await store.events!.append('run-text', events.slice(5), true)
    expect(await store.events!.read('run-text', 0)).toEqual({ events, ended: true })
    expect(await store.events!.read('run-text', 2, 2)).toEqual({ events: events.slice(2, 4), ended: false })
    // A run's whole log in its last write (the store's commits carry a run's events), numbered from anywhere; then one more after its end.
    const whole = events.map(({ data }, index) => ({ seq: index + 5, data }))
    await store.events!.append('run-whole', whole, true)
    expect(await store.events!.read('run-whole', 0)).toEqual({ events: whole, ended: true })
    expect(await store.events!.read('run-whole', 1, 3)).toEqual({ events: whole.slice(1, 4), ended: false })
    expect(await store.events!.read('run-whole', 6)).toEqual({ events: whole.slice(6), ended: true })
    await store.events!.append('run-whole', [{ seq: 12, data: '{"late":true}' }], false)
    expect(await store.events!.read('run-whole', 5)).toEqual({ events: [...whole.slice(5), { seq: 12, data: '{"late":true}' }], ended: true })
    const numbered = [3, 4, 9, 10].map((seq) => ({ seq, data: `{"seq":${seq}}` }))
    await store.events!.append('run-numbered', numbered, true)
    expect(await store.events!.read('run-numbered', 0)).toEqual({ events: numbered, ended: true })
    // A long run, its events in many batches, and one more after its end.
    const long = Array.from({ length: 300 }, (_, index) => ({ seq: index + 1, data: JSON.stringify({ delta: index % 7 === 0 ? `é${index}` : `w${index}` }) }))
    for (let from = 0; from < 299; from += 13) await store.events!.append('run-long', long.slice(from, Math.min(from + 13, 299)), from + 13 >= 299)
    await store.events!.append('run-long', long.slice(299), false)
    expect(await store.events!.read('run-long', 0)).toEqual({ events: long, ended: true })
    expect(await store.events!.read('run-long', 63, 3)).toEqual({ events: long.slice(63, 66), ended: false })
  })

  it('forgets threads in the order they were last used, however many come and go', async () => {
    const store = memoryStore({ maxThreads: 50 })
    // The store's order of use, as a list: the least recently used first.
    const used: string[] = []
    const use = (id: string) => {
      const at = used.indexOf(id)
      if (at !== -1) used.splice(at, 1)
      used.push(id)
    }
    const versions = new Map<string, number>()
    let seed = 7
    const next = () => (seed = (seed * 48271) % 2147483647)
    for (let step = 0; step < 2000; step++) {
      const known = used.length > 0 && next() % 3 === 0 ? used[next() % used.length]! : undefined
      if (known && next() % 2 === 0) {
        expect(await store.head(known)).toBeDefined()
        use(known)
        continue
      }
      const id = known ?? `t${step}`
      const version = (versions.get(id) ?? 0) + 1
      expect(await store.commit({ head: head(id, { version }), append: [] })).toBe(true)
      versions.set(id, version)
      use(id)
      if (used.length > 50) versions.delete(used.shift()!)
    }
    for (const id of used) expect(await store.head(id)).toMatchObject({ id, version: versions.get(id) })
    for (const id of ['t0', 't1', 't2']) if (!used.includes(id)) expect(await store.head(id)).toBeUndefined()
  })

  it('keeps the last maxEndedRunLogs ended runs\' events, a run logged again after its log went included', async () => {
    const store = memoryStore({ maxEndedRunLogs: 5 })
    const event = (seq: number) => ({ seq, data: `{"n":${seq}}` })
    for (let run = 0; run < 20; run++) await store.events!.append(`run-${run}`, [event(1)], true)
    // A late write makes the first run's log again; it ends again, and is listed twice in the order runs ended.
    await store.events!.append('run-0', [event(1)], true)
    for (let run = 0; run < 20; run++) await store.events!.append(`more-${run}`, [event(1)], true)
    for (let run = 0; run < 15; run++) expect(await store.events!.read(`more-${run}`, 0)).toBeUndefined()
    for (let run = 15; run < 20; run++) expect(await store.events!.read(`more-${run}`, 0)).toEqual({ events: [event(1)], ended: true })
    expect(await store.events!.read('run-0', 0)).toBeUndefined()
  })

  it('refuses nonsense bounds with the option named', () => {
    expect(() => memoryStore({ maxThreads: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'maxThreads' }))
  })
})
