import type { ResumeAnswer } from '../../protocol/requests.ts'
import { formatIssuePath, formatIssues } from '../../schema/formatIssues.ts'
import { validateJsonSchema } from '../../schema/validateJsonSchema.ts'
import { isRecord } from '../../util/isRecord.ts'
import { HttpError } from '../errors.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'

// The answer to a tool's request for input (run/inputInterrupts.ts), checked before it is stored:
// an approval whose values fill the request's form. The tool's server checks them again; a bad
// answer is refused here, typed, so it never reaches it.

/**
 * Refuses an accept whose values are not the form's: a field the form does not have, or values
 * its schema refuses (a required field left empty, a wrong type, a choice not offered). A grant
 * is refused: an answer to one request allows nothing later.
 */
export function checkInputAnswer(interrupt: StoredInterrupt & Required<Pick<StoredInterrupt, 'inputRequest'>>, answer: ResumeAnswer, path: string): void {
  if ('grant' in answer && answer.grant) {
    throw new HttpError(422, 'ANSWER_MISMATCH', `Interrupt "${interrupt.id}" asks for input to one call of tool "${interrupt.toolName}"; it cannot be granted for later calls`, `${path}.grant`)
  }
  if (!('approved' in answer) || !answer.approved) return
  const { schema } = interrupt.inputRequest
  const values = 'editedArgs' in answer ? answer.editedArgs : interrupt.input
  const where = 'editedArgs' in answer ? `${path}.editedArgs` : path
  if (!isRecord(values)) throw invalid(`The answer to "${interrupt.toolName}" must be an object of the form's fields`, where)
  const fields = isRecord(schema.properties) ? schema.properties : {}
  const unknown = Object.keys(values).filter((name) => !(name in fields))
  if (unknown.length > 0) throw invalid(`The form of "${interrupt.toolName}" has no field ${unknown.map((name) => `"${name}"`).join(', ')}`, `${where}.${unknown[0]}`)
  const issues = validateJsonSchema(schema, values)
  if (issues.length === 0) return
  const first = issues[0]!.path
  throw invalid(`The answer to "${interrupt.toolName}" does not fill its form:\n${formatIssues(issues)}`, first && first.length > 0 ? `${where}.${formatIssuePath(first)}` : where)
}

function invalid(message: string, path: string): HttpError {
  return new HttpError(422, 'INVALID_EDITED_ARGS', message, path)
}
