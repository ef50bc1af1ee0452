import { afterEach, describe, expect, it, vi } from 'vitest'
import { NotifyBatcher, scheduleNotify } from '../../src/client/store/scheduleNotify.ts'

afterEach(() => {
  vi.unstubAllGlobals()
  vi.useRealTimers()
})

describe('scheduleNotify', () => {
  it('waits for the next animation frame in a visible page', () => {
    const frames: (() => void)[] = []
    vi.stubGlobal('requestAnimationFrame', (callback: () => void) => frames.push(callback))
    vi.stubGlobal('document', { visibilityState: 'visible' })
    const flush = vi.fn()
    scheduleNotify(flush)
    expect(flush).not.toHaveBeenCalled()
    frames[0]!()
    expect(flush).toHaveBeenCalledOnce()
  })

  it('uses a timeout where frames do not come: no requestAnimationFrame, or a hidden page', () => {
    vi.useFakeTimers()
    const frame = vi.fn()
    vi.stubGlobal('requestAnimationFrame', frame)
    vi.stubGlobal('document', { visibilityState: 'hidden' })
    const flush = vi.fn()
    scheduleNotify(flush)
    vi.runAllTimers()
    expect(flush).toHaveBeenCalledOnce()
    expect(frame).not.toHaveBeenCalled()

    vi.stubGlobal('requestAnimationFrame', undefined)
    vi.stubGlobal('document', undefined)
    scheduleNotify(flush)
    vi.runAllTimers()
    expect(flush).toHaveBeenCalledTimes(2)
  })
})

describe('NotifyBatcher', () => {
  it('schedules one flush for any number of requests until it runs', () => {
    const scheduled: (() => void)[] = []
    const flush = vi.fn()
    const batcher = new NotifyBatcher(flush, (callback) => scheduled.push(callback))
    batcher.request()
    batcher.request()
    batcher.request()
    expect(scheduled).toHaveLength(1)
    scheduled[0]!()
    expect(flush).toHaveBeenCalledOnce()
    batcher.request()
    expect(scheduled).toHaveLength(2)
    batcher.flushNow()
    expect(flush).toHaveBeenCalledTimes(2)
  })
})
