import type { DecisionRecord, DecisionSummary, Principal } from '../../protocol/decisions.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { digestOf } from '../../util/digest.ts'
import { isRecord } from '../../util/isRecord.ts'
import { HttpError } from '../errors.ts'
import type { ThreadToolMessage } from '../../protocol/messages.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'
import type { DecisionTip, ThreadHead, ThreadStore } from '../thread/threadStore.ts'

// The decision record: made here, chained here, verified here. A record is written only beside
// the head change it explains (one compare-and-set: see `ThreadChange.decisions`), so the record
// and the state it describes never disagree.

/** A record before it is chained: the digests, its number and the link to the one before are added by `chainDecisions`. */
export type DecisionDraft = Omit<DecisionRecord, 'seq' | 'previous' | 'digest' | 'shownDigest' | 'ranDigest'>


/** The principal of a request the app's `identify` did not recognise. */
export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous' })

/** The server itself, for outcomes no person decided (an expiry, a stop). */
export const SYSTEM: Principal = Object.freeze({ id: 'system', name: 'Toolgate' })

/** Numbers, digests and links the drafts in order after `tip`. */
export async function chainDecisions(
  tip: DecisionTip | undefined,
  drafts: readonly DecisionDraft[],
): Promise<{ readonly records: DecisionRecord[]; readonly tip: DecisionTip }> {
  let count = tip?.count ?? 0
  let last = tip?.last ?? null
  const records: DecisionRecord[] = []
  for (const draft of drafts) {
    const body = {
      ...draft,
      seq: count,
      previous: last,
      shownDigest: await digestOf(draft.shownArgs ?? null),
      ...('ranArgs' in draft ? { ranDigest: await digestOf(draft.ranArgs ?? null) } : {}),
    }
    const record: DecisionRecord = { ...body, digest: await digestOf(body) }
    records.push(record)
    count++
    last = record.digest
  }
  return { records, tip: { count, last } }
}

/**
 * Checks every record's digests and its link to the one before; throws 500
 * `DECISION_RECORD_ALTERED` naming the first record that does not match what was written.
 */
export async function verifyDecisions(records: readonly DecisionRecord[], tip: DecisionTip | undefined): Promise<void> {
  let previous: string | null = null
  for (const [index, record] of records.entries()) {
    const { digest, ...body } = record
    const intact =
      record.seq === index &&
      record.previous === previous &&
      digest === (await digestOf(body)) &&
      record.shownDigest === (await digestOf(record.shownArgs ?? null)) &&
      (!('ranArgs' in record) || record.ranDigest === (await digestOf(record.ranArgs ?? null)))
    if (!intact) throw altered(`record ${index} (${record.decision} of call "${record.toolCallId}") does not match its digest`, index)
    previous = digest
  }
  if ((tip?.count ?? 0) !== records.length || (tip?.last ?? null) !== previous) {
    throw altered(`the thread's head expects ${tip?.count ?? 0} records ending in ${tip?.last ?? 'none'}, and the store holds ${records.length}`, records.length)
  }
}

function altered(what: string, index: number): HttpError {
  return new HttpError(500, 'DECISION_RECORD_ALTERED', `The decision record was altered in the store: ${what}`, `decisions[${index}]`)
}

/** Top-level fields whose values differ between what was shown and what ran. */
export function editedFields(shown: unknown, ran: unknown): string[] {
  if (!isRecord(shown) || !isRecord(ran)) return deepEqual(shown, ran) ? [] : ['']
  const keys = new Set([...Object.keys(shown), ...Object.keys(ran)])
  return [...keys].filter((key) => !deepEqual(shown[key], ran[key])).sort()
}

/** What a tool-call part shows of a record. */
export function summaryOf(record: DecisionRecord): DecisionSummary {
  const { decision, by, at, channel, reason, editedFields, grantId } = record
  return {
    decision,
    by,
    at,
    channel,
    ...(reason === undefined ? {} : { reason }),
    ...(editedFields === undefined ? {} : { editedFields }),
    ...(grantId === undefined ? {} : { grantId }),
  }
}

/** The thread's records, read and verified: what `GET ?decisions` and `handler.decisions` return. */
export async function verifiedDecisions(store: ThreadStore, head: ThreadHead): Promise<readonly DecisionRecord[]> {
  const records = head.decisions ? await store.decisions(head.id) : []
  await verifyDecisions(records, head.decisions)
  return records
}

/**
 * Records of what became of approvals no one decided: `expired` (by the server: no one answered
 * in time), `cancelled` (by whoever stopped the turn or moved on with a new message). Approvals a
 * person already denied were recorded when they did.
 */
export function outcomeDrafts(
  threadId: string,
  interrupts: readonly StoredInterrupt[],
  results: readonly ThreadToolMessage[],
  by: Principal,
): DecisionDraft[] {
  const at = new Date().toISOString()
  const drafts: DecisionDraft[] = []
  for (const interrupt of interrupts) {
    if (interrupt.reason !== 'tool_approval') continue
    const { answer } = interrupt
    if (answer?.kind === 'approval' && !answer.approved) continue
    const result = results.find((candidate) => candidate.toolCallId === interrupt.toolCallId)
    // The record says what the result says: its status is the decision, its reason the reason.
    if (result?.status !== 'expired' && result?.status !== 'cancelled') continue
    const expired = result.status === 'expired'
    drafts.push({
      threadId,
      interruptId: interrupt.id,
      toolCallId: interrupt.toolCallId,
      toolName: interrupt.toolName,
      decision: result.status,
      by: expired ? SYSTEM : by,
      at,
      channel: 'chat',
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      shownArgs: interrupt.proposed ?? interrupt.input,
    })
  }
  return drafts
}

/**
 * Records what became of the approvals no one decided (`outcomeDrafts`), chained after the head's,
 * and puts each record's summary on its result: the stored thread, the stream and the UI part show
 * the same outcome, by the same person, for the same reason as the record.
 */
export async function recordOutcomes<T extends { readonly results: readonly ThreadToolMessage[] }>(
  head: Pick<ThreadHead, 'id' | 'decisions'>,
  interrupts: readonly StoredInterrupt[],
  settled: T,
  by: Principal,
): Promise<T & { readonly decided: Awaited<ReturnType<typeof chainDecisions>> }> {
  const decided = await chainDecisions(head.decisions, outcomeDrafts(head.id, interrupts, settled.results, by))
  const byCall = new Map(decided.records.map((record) => [record.toolCallId, summaryOf(record)]))
  const results = settled.results.map((result) => {
    const decision = byCall.get(result.toolCallId)
    return decision ? { ...result, decision } : result
  })
  return { ...settled, results, decided }
}
