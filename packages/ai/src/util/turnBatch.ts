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

/**
 * One turn's tasks. Two of each are kept and swapped each turn, emptied in place: a run streaming
 * a delta per turn asks for a task every turn, and a new array each turn grew new storage each time.
 */
class TaskList {
  #tasks: ((() => void) | undefined)[] = []
  #size = 0

  get size(): number {
    return this.#size
  }

  add(task: () => void): void {
    this.#tasks[this.#size++] = task
  }

  /** Runs the tasks in order, and lets go of them. */
  run(): void {
    for (let index = 0; index < this.#size; index++) {
      const task = this.#tasks[index]!
      this.#tasks[index] = undefined
      try {
        task()
      } catch (error) {
        console.error('[toolgate] a task at the end of an event-loop turn failed:', error)
      }
    }
    this.#size = 0
  }
}

let first = new TaskList()
let after = new TaskList()
/** The lists of the turn before, empty: the next turn's tasks go in them while this turn's run. */
let firstSpare = new TaskList()
let afterSpare = new TaskList()
let scheduled = false

/** Runs `task` at the end of this event-loop turn, in one task with every other asked for it. */
export function atTurnEnd(task: () => void): void {
  first.add(task)
  schedule()
}

/** Runs `task` at the end of this event-loop turn, after the `atTurnEnd` tasks and the microtasks they queued. */
export function afterTurnEnd(task: () => void): void {
  after.add(task)
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
  first = firstSpare
  firstSpare = tasks
  const ran = tasks.size > 0
  tasks.run()
  if (after.size === 0) return
  // Queued behind the reactions to what those tasks did. With none run there are none to wait
  // for (a streaming turn, whose log is in this process, only sends its frames): no microtask.
  if (ran) queueMicrotask(runAfter)
  else runAfter()
}

function runAfter(): void {
  const tasks = after
  after = afterSpare
  afterSpare = tasks
  tasks.run()
}
