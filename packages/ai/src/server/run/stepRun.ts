import type { RunMiddleware } from './middleware.ts'
import type { Run } from './Run.ts'

/**
 * What a model step reads of its run: the run itself, or a subagent inside one of its calls
 * (run/subagent.ts: its own model, tools, history and events; the run's signal, thread and usage).
 */
export type StepRun = Pick<Run, 'events' | 'signal' | 'messages' | 'trace' | 'config' | 'head' | 'usage' | 'whenAborted'> & {
  readonly middleware: Pick<RunMiddleware, 'any' | 'modelRequest'>
}
