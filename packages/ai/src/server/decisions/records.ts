import type { DecisionRecord, DecisionSummary, Principal } from '../../protocol/decisions.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { canonicalJson, digestOf } from '../../util/digest.ts'
import { isRecord } from '../../util/isRecord.ts'
import { HttpError } from '../errors.ts'
import type { ThreadMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import { MAC_PREFIX, macOf, sameMac } from './recordKey.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'
import type { DecisionTip, ThreadHead, ThreadStore } from '../thread/threadStore.ts'

// The decision record: made here, chained here, verified here. A record is written only beside
// the head change it explains (one compare-and-set: see `ThreadChange.decisions`), so the record
// and the state it describes never disagree. With the app's secret (`decisions.secret`, else
// `reviewLinks.secret`) each record's `digest` is an HMAC under a key the store never holds
// (recordKey.ts): a store writer can still delete, but no longer forge, recompute or append; a
// record removed from the tail is caught against what the thread shows (`checkShown`). Without
// it the chain is plain SHA-256, which catches accidents, not a writer.

/** A record before it is chained: the digests, its number and the link to the one before are added by `chainDecisions`. */
export type DecisionDraft = Omit<DecisionRecord, 'seq' | 'previous' | 'digest' | 'shownDigest' | 'ranDigest'>


/** The principal of a request the app's `identify` did not recognise. */
export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous' })

/** The server itself, for outcomes no person decided (an expiry, a stop). */
export const SYSTEM: Principal = Object.freeze({ id: 'system', name: 'Toolgate' })

/** Numbers, digests (MACs under `key`) and links the drafts in order after `tip`. */
export async function chainDecisions(
  tip: DecisionTip | undefined,
  drafts: readonly DecisionDraft[],
  key: Promise<CryptoKey> | undefined,
): Promise<{ readonly records: DecisionRecord[]; readonly tip: DecisionTip }> {
  const signing = key && (await key)
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
    const record: DecisionRecord = { ...body, digest: signing ? await macOf(signing, body) : await digestOf(body) }
    records.push(record)
    count++
    last = record.digest
  }
  return { records, tip: { count, last } }
}

/**
 * Checks every record's digests and its link to the one before; throws 500
 * `DECISION_RECORD_ALTERED` naming the first record that does not match what was written. With
 * `key`, each record's `digest` must be its MAC under that key: one made without the key (a plain
 * SHA-256, or a MAC recomputed with another) is refused. Without it, a keyed record's links are
 * checked but its MAC cannot be.
 */
export async function verifyDecisions(records: readonly DecisionRecord[], tip: DecisionTip | undefined, key: Promise<CryptoKey> | undefined): Promise<void> {
  const signing = key && (await key)
  let previous: string | null = null
  for (const [index, record] of records.entries()) {
    if (!isRecord(record)) throw altered(`record ${index} is not a record`, index)
    const { digest, ...body } = record
    const intact =
      typeof digest === 'string' &&
      record.seq === index &&
      record.previous === previous &&
      (signing ? sameMac(digest, await macOf(signing, body)) : digest.startsWith(MAC_PREFIX) || digest === (await digestOf(body))) &&
      record.shownDigest === (await digestOf(record.shownArgs ?? null)) &&
      (!('ranArgs' in record) || record.ranDigest === (await digestOf(record.ranArgs ?? null)))
    if (!intact) throw altered(`record ${index} (${record.decision} of call "${record.toolCallId}") does not match its ${signing ? 'MAC' : 'digest'}`, index)
    previous = digest
  }
  if ((tip?.count ?? 0) !== records.length || (tip?.last ?? null) !== previous) {
    throw altered(`the thread's head expects ${tip?.count ?? 0} records ending in ${tip?.last ?? 'none'}, and the store holds ${records.length}`, records.length)
  }
}

/**
 * Every decision the thread shows must be a record: a settled call's result, an answer or an
 * approval its open step holds, and each escalation its open interrupts count. Records are chained,
 * so the one a shown decision matches vouches for every record before it: a record trimmed from
 * the tail, or every record removed with the head's tip, is caught here unless the messages that
 * show it were rewritten too (what `verifyDecisionRecords` with the `onDecision` copy catches).
 */
export function checkShown(records: readonly DecisionRecord[], head: ThreadHead, messages: readonly ThreadMessage[]): void {
  const kept = new Map<string, string[]>()
  for (const record of records) {
    const texts = kept.get(record.toolCallId) ?? []
    texts.push(identity(record))
    kept.set(record.toolCallId, texts)
  }
  const shown = (toolCallId: string, summary: DecisionSummary | undefined) => {
    if (summary && !kept.get(toolCallId)?.includes(identity(summary))) {
      throw altered(`the thread shows call "${toolCallId}" ${summary.decision} by "${summary.by?.id}" at ${summary.at}, and no record of it is kept`, records.length)
    }
  }
  for (const message of messages) if (message.role === 'tool') shown(message.toolCallId, message.decision)
  const { step } = head
  if (!step) return
  for (const result of step.results) shown(result.toolCallId, result.decision)
  for (const interrupt of step.interrupts) {
    if (interrupt.answer?.kind === 'approval') shown(interrupt.toolCallId, interrupt.answer.decision)
    for (const approval of interrupt.approvals ?? []) shown(interrupt.toolCallId, approval)
    const escalated = records.filter((record) => record.decision === 'escalated' && record.interruptId === interrupt.id).length
    if (escalated < (interrupt.escalations ?? 0)) throw altered(`call "${interrupt.toolCallId}" was escalated ${interrupt.escalations} times, and ${escalated} are kept`, records.length)
  }
}

/** 500 `DECISION_RECORD_ALTERED`, naming record `index`. */
export function altered(what: string, index: number): HttpError {
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

/** What names a decision wherever it is shown: what, who, when, how (the record holds the rest). */
function identity({ decision, by, at, channel }: DecisionSummary): string {
  return canonicalJson([decision, by, at, channel])
}

/** What reading the records needs of the handler: the store, and the records' key when the app gave a secret. */
export interface RecordReader {
  readonly store: ThreadStore
  readonly recordKey: Promise<CryptoKey> | undefined
}

/**
 * The thread's records, read and verified against their MACs (digests without a key), the head's
 * tip and what `messages` (the thread's, all of them) show: what `GET ?decisions` and
 * `handler.decisions` return. Records are read even when the head names none, so a tip removed
 * with records left behind is caught too.
 */
export async function verifiedDecisions(reader: RecordReader, head: ThreadHead, messages: readonly ThreadMessage[]): Promise<readonly DecisionRecord[]> {
  const records = await reader.store.decisions(head.id)
  await verifyDecisions(records, head.decisions, reader.recordKey)
  checkShown(records, head, messages)
  return records
}

/**
 * Before a read shows the thread (a snapshot, a page of it, the devtools): with a key, the
 * decisions it shows are checked against the verified records, so none is served as genuine once
 * its record was forged or removed. A thread that shows no decision and whose head names none is
 * read as it is: no records to read. Without a key, nothing is read (the plain chain proves nothing
 * against a writer; `GET ?decisions` still checks it).
 */
export async function checkShownDecisions(reader: RecordReader, head: ThreadHead, messages: readonly ThreadMessage[]): Promise<void> {
  if (!reader.recordKey) return
  if (!head.decisions && !showsDecisions(head, messages)) return
  await verifiedDecisions(reader, head, messages)
}

function showsDecisions(head: ThreadHead, messages: readonly ThreadMessage[]): boolean {
  const { step } = head
  if (step && (step.results.some((result) => result.decision) || step.interrupts.some((interrupt) => interrupt.answer || interrupt.approvals || interrupt.escalations))) return true
  return messages.some((message) => message.role === 'tool' && message.decision !== undefined)
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
    // A subagent's call has no result of its own here: the call of its outermost agent tool ended for it.
    const settledBy = interrupt.path?.[0]?.toolCallId ?? interrupt.toolCallId
    const result = results.find((candidate) => candidate.toolCallId === settledBy)
    // The record says what the result says: its status is the decision, its reason the reason.
    if (result?.status !== 'expired' && result?.status !== 'cancelled') continue
    const expired = result.status === 'expired'
    drafts.push({
      threadId,
      interruptId: interrupt.id,
      toolCallId: interrupt.toolCallId,
      toolName: interrupt.toolName,
      ...(interrupt.path ? { path: interrupt.path } : {}),
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
  key: Promise<CryptoKey> | undefined,
): Promise<T & { readonly decided: Awaited<ReturnType<typeof chainDecisions>> }> {
  const decided = await chainDecisions(head.decisions, outcomeDrafts(head.id, interrupts, settled.results, by), key)
  const byCall = new Map(decided.records.map((record) => [record.toolCallId, summaryOf(record)]))
  const results = settled.results.map((result) => {
    const decision = byCall.get(result.toolCallId)
    return decision ? { ...result, decision } : result
  })
  return { ...settled, results, decided }
}
