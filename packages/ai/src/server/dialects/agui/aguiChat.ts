import type { ChatConfig } from '../../options.ts'
import { resume } from '../../claim/resume.ts'
import { startTurn } from '../../claim/startTurn.ts'
import { supersedeRun } from '../../claim/supersede.ts'
import type { ClientThread, MessageIntent } from '../../claim/intent.ts'
import type { ResumeRequest } from '../../../protocol/requests.ts'
import { answeredElsewhere } from './staleAnswer.ts'
import { runOutcome } from '../../run/outcome.ts'
import { pausedRun, startRun } from '../../run/startRun.ts'
import { clientThread } from './clientThread.ts'
import { connect } from './connect.ts'
import { withFrontendTools } from './frontendTools.ts'
import { rejoinRun } from './rejoin.ts'
import type { AguiInput } from './runAgentInput.ts'

/**
 * An AG-UI client's input (or an AI SDK body read as one): its intent (a message, answers, `tool`
 * messages for frontend calls, or nothing new: a reload) is claimed with its hooks
 * (clientThread.ts), under the frontend tools it declared that the app accepts, and answered with
 * AG-UI events, even where the compact protocol answers JSON: answers that leave calls open are a
 * run that ends on them again, and an input that answers nothing gets where the thread stands.
 */
export async function answerAgui(config: ChatConfig, request: Request, input: AguiInput): Promise<Response> {
  const scoped = input.declaredTools ? withFrontendTools(config, input.declaredTools) : config
  const client = clientThread(scoped, input)
  if (!('resume' in input)) return startRun(scoped, await superseding(scoped, request, { threadId: input.threadId, message: input.message, client }))
  // A client connecting while a run holds the thread (a page reloaded mid-run) follows the run; a stale tab's answer gets the thread as it stands (staleAnswer.ts).
  const rejoined = await rejoinRun(scoped, request, input)
  if (rejoined) return rejoined
  return await answeredElsewhere(scoped, request, input, () => answers(scoped, request, input, client))
}

/** The turn a message claims; its message while the thread's run still goes supersedes that run (claim/supersede.ts). */
async function superseding(config: ChatConfig, request: Request, intent: MessageIntent) {
  try {
    return await startTurn(config, request, intent)
  } catch (error) {
    if (intent.threadId === undefined || !(await supersedeRun(config, request, intent.threadId, error))) throw error
    return await startTurn(config, request, intent)
  }
}

async function answers(config: ChatConfig, request: Request, input: AguiInput & ResumeRequest, client: ClientThread): Promise<Response> {
  const resumed = await resume(config, request, { threadId: input.threadId, resume: input.resume, client })
  if ('run' in resumed) return startRun(config, resumed.run)
  if ('nothing' in resumed) return await connect(config, request, input, resumed.nothing.read)
  const { threadId, runId, answered, waiting } = resumed.accepted
  return pausedRun(config, request, { threadId, runId, outcome: runOutcome(config, waiting), answered })
}
