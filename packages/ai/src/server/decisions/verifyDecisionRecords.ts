import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { DecisionTip } from '../thread/threadStore.ts'
import { decisionRecordKey } from './recordKey.ts'
import { altered, verifyDecisions } from './records.ts'

// For auditors: a thread's records as the store holds them, checked with the app's secret alone
// (no handler, no store) and against a copy kept outside the store, what `onDecision` exported as
// each record was written. The store can be made to forget its last records consistently (the
// records, the head's tip and the messages that show them); the copy cannot.

export interface VerifyDecisionRecordsOptions {
  /** The secret the handler signs records with (`decisions.secret`, else `reviewLinks.secret`). */
  readonly secret: string | Uint8Array
  /**
   * The records as `onDecision` received them, kept outside the store: every one of this thread's
   * (by `threadId`) must be in `records`, identical. Records of other threads are ignored.
   */
  readonly exported?: readonly DecisionRecord[]
  /** The thread the records are of; default: the first record's. Needed to compare an empty list with `exported`. */
  readonly threadId?: string
}

/**
 * Checks a thread's records (oldest first, as `handler.decisions` or the store returns them): each
 * record's MAC under the secret, its number and its link to the one before, and, given `exported`,
 * that no exported record of the thread is missing or different. Resolves to the chain's tip
 * (`{ count, last }`: keep it to check the next export against); throws an `HttpError` with code
 * `DECISION_RECORD_ALTERED` and `path` `decisions[i]` naming the first record that fails.
 */
export async function verifyDecisionRecords(records: readonly DecisionRecord[], options: VerifyDecisionRecordsOptions): Promise<DecisionTip> {
  if (!Array.isArray(records)) throw new TypeError('verifyDecisionRecords: `records` must be an array of decision records')
  const tip: DecisionTip = { count: records.length, last: records.at(-1)?.digest ?? null }
  await verifyDecisions(records, tip, decisionRecordKey(options.secret))
  const threadId = options.threadId ?? records[0]?.threadId
  if (records.some((record) => record.threadId !== threadId)) {
    const index = records.findIndex((record) => record.threadId !== threadId)
    throw altered(`record ${index} is of thread "${records[index]!.threadId}", not "${threadId}"`, index)
  }
  for (const copy of options.exported ?? []) {
    if (threadId !== undefined && copy.threadId !== threadId) continue
    const held = records[copy.seq]
    if (!held) throw altered(`record ${copy.seq} (${copy.decision} of call "${copy.toolCallId}" at ${copy.at}) was exported and is not in the store, which holds ${records.length}`, copy.seq)
    if (held.digest !== copy.digest) throw altered(`record ${copy.seq} differs from the one exported`, copy.seq)
  }
  return tip
}
