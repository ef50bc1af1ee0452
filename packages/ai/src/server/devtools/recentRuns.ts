import type { DevtoolsRuns } from '../options.ts'

const THREADS_KEPT = 100
const RUNS_KEPT = 20

/**
 * The runs this process started, by thread, newest threads kept: a thread's head names only its
 * active run, and the devtools panel shows the recent ones (their events stay in the run event
 * log for its retention time, on any instance).
 */
export function recentRuns(): DevtoolsRuns {
  const byThread = new Map<string, { runId: string; startedAt: number; kind: string }[]>()
  return {
    add(threadId, run) {
      const runs = byThread.get(threadId) ?? []
      byThread.delete(threadId)
      byThread.set(threadId, [...runs, run].slice(-RUNS_KEPT))
      if (byThread.size > THREADS_KEPT) byThread.delete(byThread.keys().next().value!)
    },
    of(threadId) {
      return byThread.get(threadId) ?? []
    },
  }
}
