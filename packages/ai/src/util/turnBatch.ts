// The one "at the end of this event-loop turn" batch, in the manner of TanStack Query's
// `notifyManager`: what is asked during a turn (a run's log batch, its frames, a dialect's frames)
// runs once the turn is done, all of it in one task for the whole process, in the order asked. A
// run streaming a delta per turn would otherwise pay one task for each of them. `afterTurnEnd`
// tasks run after the `atTurnEnd` ones, once the microtasks those queued have run: a log write an
// in-process store answers at once is heard (and a finished run's stream ended) before the frames
// go out, so its last frames leave with the end in one write, and a store's round trip holds no
// frame back.

/**
 * The end of the turn is the check phase, once the turn's I/O callbacks and their promises ran:
 * `setImmediate`, which only Node-compatible runtimes get (Next.js' Edge runtime defines one that
 * throws); elsewhere a timer.
 */
const hasImmediate = (globalThis as { process?: { release?: { name?: string } } }).process?.release?.name === 'node' && typeof setImmediate === 'function'

let first: (() => void)[] = []
let after: (() => void)[] = []
let scheduled = false

/** Runs `task` at the end of this event-loop turn, in one task with every other asked for it. */
export function atTurnEnd(task: () => void): void {
  first.push(task)
  schedule()
}

/** Runs `task` at the end of this event-loop turn, after the `atTurnEnd` tasks and the microtasks they queued. */
export function afterTurnEnd(task: () => void): void {
  after.push(task)
  schedule()
}

function schedule(): void {
  if (scheduled) return
  scheduled = true
  if (hasImmediate) setImmediate(runTurnEnd)
  else setTimeout(runTurnEnd, 0)
}

function runTurnEnd(): void {
  scheduled = false
  const tasks = first
  first = []
  runEach(tasks)
  // Queued behind the reactions to what those tasks did.
  if (after.length > 0) queueMicrotask(runAfter)
}

function runAfter(): void {
  const tasks = after
  after = []
  runEach(tasks)
}

function runEach(tasks: readonly (() => void)[]): void {
  for (const task of tasks) {
    try {
      task()
    } catch (error) {
      console.error('[toolgate] a task at the end of an event-loop turn failed:', error)
    }
  }
}
