import { randomId } from '../../util/randomId.ts'
import type { RunEventLog } from '../thread/threadStore.ts'

/** A new run's id: minted by the run's log when it mints them (it then finds the run by that id alone more cheaply), else random. */
export function newRunId(log: RunEventLog, threadId: string): string {
  return log.newRunId?.(threadId) ?? randomId('run_')
}
