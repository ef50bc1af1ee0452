import type { ResumeRequest } from '../../../protocol/requests.ts'
import { HttpError } from '../../errors.ts'
import type { AguiFields } from './runAgentInput.ts'
import type { ChatConfig } from '../../options.ts'
import { connect } from './connect.ts'
import { rejoinRun } from './rejoin.ts'
import { refusesStaleAnswers } from './staleRefusals.ts'

// Two tabs on one thread show the same approval; one answers it. The other tab's answer, given
// later, is refused (`INTERRUPT_ALREADY_ANSWERED`: the call runs once) and, as a 409, leaves that
// tab showing the question with nothing to say what came of it: CopilotKit's turn goes blank,
// TanStack's shows an HTTP error. An AG-UI client takes a snapshot in a run, so the stale tab is
// answered with the truth instead, as if it had reloaded: the thread as it stands
// (`MESSAGES_SNAPSHOT`, and what still waits), or, while the run the first answer started still
// goes, that run to its end. Nothing of the stale answer is applied.

/**
 * `resume`'s answer to an AG-UI client, or, when the interrupts it answers were answered by
 * someone else first, the thread as it stands (a reload's answer, `rejoinRun`). Only answers given
 * through `resume` (approvals): a `tool` message that repeats a frontend call's answer with another
 * result is still refused.
 */
export async function answeredElsewhere(config: ChatConfig, request: Request, body: ResumeRequest & AguiFields, resume: () => Promise<Response>): Promise<Response> {
  try {
    return await resume()
  } catch (error) {
    if (!(error instanceof HttpError) || error.code !== 'INTERRUPT_ALREADY_ANSWERED' || !error.path?.startsWith('resume[') || refusesStaleAnswers(request)) throw error
    const reload = { ...body, resume: [], toolMessages: [], endsWithTool: undefined }
    return (await rejoinRun(config, request, reload)) ?? (await connect(config, request, reload))
  }
}
