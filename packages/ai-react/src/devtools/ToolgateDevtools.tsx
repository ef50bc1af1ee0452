import { useState, type CSSProperties, type ReactNode } from 'react'
import type { DevtoolsInterrupt, DevtoolsRun, DevtoolsSnapshot, RunEvent, ThreadMessage, TokenUsage } from '@toolgate/ai/protocol'
import { useDevtoolsSnapshot, type DevtoolsSource } from './useDevtoolsSnapshot.ts'

export interface ToolgateDevtoolsProps extends DevtoolsSource {
  /** Shows a close button that calls this. */
  readonly onClose?: () => void
  /** Merged over the panel's own: it floats at the top right, clear of a header and a composer. */
  readonly style?: CSSProperties
}

type Tab = 'timeline' | 'interrupts' | 'messages' | 'thread' | 'frames'
const TABS: readonly { readonly id: Tab; readonly label: string }[] = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'interrupts', label: 'Interrupts' },
  { id: 'messages', label: 'Messages' },
  { id: 'thread', label: 'Thread' },
  { id: 'frames', label: 'Frames' },
]

/**
 * The thread as the server holds it: the runs' event timelines with timings and token usage,
 * pending interrupts with their expiry and the answers given, messages, the head and its lease,
 * and the raw AG-UI frames. Reads the handler's `?devtools` route (`devtools: true`), so it shows
 * what `authorize` lets the page read, and nothing when the handler does not serve it.
 */
export function ToolgateDevtools({ onClose, style, ...source }: ToolgateDevtoolsProps) {
  const state = useDevtoolsSnapshot(source)
  const [tab, setTab] = useState<Tab>('timeline')
  const [picked, setPicked] = useState<string | undefined>()

  const snapshot = state.kind === 'ready' ? state.snapshot : undefined
  const runs = snapshot?.runs ?? []
  const run = runs.find((candidate) => candidate.runId === picked) ?? runs.at(-1)

  return (
    <aside data-testid="toolgate-devtools" aria-label="Toolgate devtools" style={{ ...styles.panel, ...style }}>
      <header style={styles.header}>
        <strong>Toolgate devtools</strong>
        {snapshot && (
          <>
            <code title={snapshot.threadId} style={styles.threadId}>{snapshot.threadId}</code>
            <span data-testid="devtools-status" style={styles.badge}>{snapshot.status}</span>
            {snapshot.store && <span style={styles.muted}>store: {snapshot.store}</span>}
          </>
        )}
        <span style={{ flex: 1 }} />
        {onClose && (
          <button type="button" onClick={onClose} style={styles.button} aria-label="Close devtools">
            ×
          </button>
        )}
      </header>
      <nav role="tablist" style={styles.tabs}>
        {TABS.map(({ id, label }) => (
          <button key={id} type="button" role="tab" aria-selected={tab === id} onClick={() => setTab(id)} style={tab === id ? styles.tabActive : styles.tab}>
            {label}
            {id === 'interrupts' && snapshot?.step ? ` (${snapshot.step.interrupts.filter((interrupt) => !interrupt.answer).length})` : ''}
          </button>
        ))}
      </nav>
      <div style={styles.body}>
        {state.kind === 'idle' && <p style={styles.muted}>No thread yet: send a message.</p>}
        {state.kind === 'loading' && <p style={styles.muted}>Reading the thread…</p>}
        {state.kind === 'failed' && <p role="alert" style={styles.error}>{state.message}</p>}
        {snapshot && (
          <>
            {(tab === 'timeline' || tab === 'frames') && runs.length > 1 && (
              <label style={styles.muted}>
                Run{' '}
                <select value={run?.runId} onChange={(event) => setPicked(event.target.value)}>
                  {runs.map((candidate) => (
                    <option key={candidate.runId} value={candidate.runId}>
                      {candidate.runId} {candidate.kind ? `(${candidate.kind})` : ''}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {tab === 'timeline' && (run ? <Timeline run={run} /> : <p style={styles.muted}>No run of this thread is known here.</p>)}
            {tab === 'frames' && run && <Frames run={run} />}
            {tab === 'interrupts' && <Interrupts snapshot={snapshot} now={state.kind === 'ready' ? state.readAt : Date.now()} />}
            {tab === 'messages' && <Messages messages={snapshot.messages} />}
            {tab === 'thread' && <Thread snapshot={snapshot} />}
          </>
        )}
      </div>
    </aside>
  )
}

type Stamped = RunEvent & { readonly timestamp?: number }

function Timeline({ run }: { readonly run: DevtoolsRun }) {
  if (run.expired) return <p style={styles.muted}>The events of {run.runId} are no longer kept.</p>
  const events = compact(run.events.map(({ event }) => event as Stamped))
  const depthOf = subagentDepths(run.events.map(({ event }) => event))
  const start = events[0]?.first.timestamp
  const last = events.at(-1)?.last.timestamp
  const finished = run.events.map(({ event }) => event).find((event) => event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR')
  const usage: TokenUsage | undefined = finished?.type === 'RUN_FINISHED' ? finished.usage?.[0] : undefined
  return (
    <section data-testid="devtools-timeline">
      <p style={styles.summary}>
        <span>{run.kind ?? 'run'}</span>
        {start !== undefined && last !== undefined && <span>{last - start} ms</span>}
        <span>{outcomeOf(finished)}</span>
        {usage && (
          <span data-testid="devtools-usage">
            {usage.inputTokens} in / {usage.outputTokens} out tokens
          </span>
        )}
        {!run.ended && <span>streaming…</span>}
      </p>
      <ol style={styles.list}>
        {events.map((row) => (
          <li key={row.seq} data-testid="devtools-event" data-type={row.first.type} data-depth={depthOf(row.first)} style={styles.row}>
            <span style={styles.time}>{start !== undefined && row.first.timestamp !== undefined ? `+${row.first.timestamp - start} ms` : ''}</span>
            <span style={{ ...styles.type, paddingLeft: depthOf(row.first) * 12 }}>{row.first.type}</span>
            <span style={styles.detail}>
              {describe(row.first)}
              {row.count > 1 ? ` ×${row.count}` : ''}
              {row.count > 1 && row.first.timestamp !== undefined && row.last.timestamp !== undefined ? ` over ${row.last.timestamp - row.first.timestamp} ms` : ''}
            </span>
          </li>
        ))}
      </ol>
    </section>
  )
}

/** Runs of deltas (text, arguments, reasoning) shown as one row each. */
function compact(events: readonly Stamped[]): { seq: number; first: Stamped; last: Stamped; count: number }[] {
  const rows: { seq: number; first: Stamped; last: Stamped; count: number }[] = []
  events.forEach((event, index) => {
    const previous = rows.at(-1)
    if (previous && isDelta(event) && previous.first.type === event.type && sameTarget(previous.first, event)) {
      previous.last = event
      previous.count += 1
    } else rows.push({ seq: index, first: event, last: event, count: 1 })
  })
  return rows
}

/**
 * How deep an event sits in the tree of subagents (agent tools' work): 0 for the run's own model,
 * 1 for a subagent it called, 2 for one that subagent called… A subagent's start, end and failure
 * sit at its caller's depth, its own events one deeper.
 */
function subagentDepths(events: readonly RunEvent[]): (event: RunEvent) => number {
  const depths = new Map<string, number>()
  for (const event of events) {
    if (event.type === 'SUBAGENT_STARTED' && !depths.has(event.subagentRunId)) {
      depths.set(event.subagentRunId, (event.parentSubagentRunId === undefined ? 0 : (depths.get(event.parentSubagentRunId) ?? 0)) + 1)
    }
  }
  return (event) => {
    const depth = 'subagentRunId' in event && event.subagentRunId !== undefined ? (depths.get(event.subagentRunId) ?? 0) : 0
    return event.type.startsWith('SUBAGENT_') ? Math.max(0, depth - 1) : depth
  }
}

function isDelta(event: RunEvent): boolean {
  return event.type === 'TEXT_MESSAGE_CONTENT' || event.type === 'TOOL_CALL_ARGS' || event.type === 'REASONING_MESSAGE_CONTENT'
}

function sameTarget(a: RunEvent, b: RunEvent): boolean {
  return ('messageId' in a && 'messageId' in b && a.messageId === b.messageId) || ('toolCallId' in a && 'toolCallId' in b && a.toolCallId === b.toolCallId)
}

function describe(event: RunEvent): string {
  switch (event.type) {
    case 'TOOL_CALL_START':
      return event.toolCallName
    case 'TOOL_CALL_RESULT':
      return `${event.metadata?.status ?? ''} ${truncate(event.content, 80)}`
    case 'TEXT_MESSAGE_CONTENT':
      return truncate(event.delta, 60)
    case 'RUN_FINISHED':
      return event.outcome?.type === 'interrupt' ? `paused on ${event.outcome.interrupts.map((interrupt) => interrupt.metadata?.toolName ?? interrupt.toolCallId).join(', ')}` : 'success'
    case 'RUN_ERROR':
      return `${event.code ?? ''} ${event.message}`
    case 'SUBAGENT_STARTED':
      return `${event.name} for ${event.parentToolCallId}`
    case 'SUBAGENT_FINISHED':
      return event.outcome?.type === 'suspended' ? 'suspended: waits for an answer' : 'success'
    case 'SUBAGENT_ERROR':
      return `${event.code ?? ''} ${event.message}`
    default:
      return ''
  }
}

function outcomeOf(event: RunEvent | undefined): string {
  if (!event) return 'running'
  if (event.type === 'RUN_ERROR') return `error ${event.code ?? ''}`
  return event.type === 'RUN_FINISHED' && event.outcome?.type === 'interrupt' ? 'paused on interrupts' : 'finished'
}

function Frames({ run }: { readonly run: DevtoolsRun }) {
  return (
    <pre data-testid="devtools-frames" style={styles.frames}>
      {run.events.map(({ seq, event }) => `id: ${run.runId}:${seq}\ndata: ${JSON.stringify(event)}\n\n`).join('')}
    </pre>
  )
}

function Interrupts({ snapshot, now }: { readonly snapshot: DevtoolsSnapshot; readonly now: number }) {
  const interrupts = snapshot.step?.interrupts ?? []
  return (
    <section>
      {interrupts.length === 0 && <p style={styles.muted}>Nothing waits for an answer.</p>}
      <ul style={styles.list}>
        {interrupts.map((interrupt) => (
          <li key={interrupt.id} data-testid="devtools-interrupt" data-answered={interrupt.answer ? 'true' : 'false'} style={styles.card}>
            <strong data-testid="devtools-interrupt-path">{[...(interrupt.path ?? []).map((hop) => hop.agent), interrupt.toolName].join(' → ')}</strong>{' '}
            <span style={styles.badge}>{interrupt.reason}</span> <code>{interrupt.id}</code>
            <div style={styles.muted}>
              {interrupt.askedAt !== undefined && <>asked {ago(now - interrupt.askedAt)} · </>}
              {expiry(interrupt, now)}
              {interrupt.traceparent && <> · trace {interrupt.traceparent.split('-')[1]}</>}
            </div>
            {interrupt.message && <div>{interrupt.message}</div>}
            <Json value={interrupt.input} />
            <div data-testid="devtools-decision">{decision(interrupt)}</div>
          </li>
        ))}
      </ul>
      <h4 style={styles.heading}>Decision record</h4>
      {snapshot.decisions.length === 0 && <p style={styles.muted}>No decision yet.</p>}
      <ol style={styles.list}>
        {snapshot.decisions.map((record) => (
          <li key={record.seq} data-testid="devtools-record" style={styles.row}>
            <span style={styles.type}>{record.decision}</span>
            <span style={styles.detail}>
              {record.toolName} by {record.by.name ?? record.by.id} via {record.channel} at {record.at}
              {record.editedFields?.length ? ` · edited: ${record.editedFields.join(', ')}` : ''}
              {record.reason ? ` · ${record.reason}` : ''}
              {record.grantId ? ` · grant ${record.grantId}` : ''}
            </span>
          </li>
        ))}
      </ol>
      {snapshot.grants.length > 0 && (
        <>
          <h4 style={styles.heading}>Grants in force</h4>
          <ul style={styles.list}>
            {snapshot.grants.map((grant) => (
              <li key={grant.id} data-testid="devtools-grant" style={styles.row}>
                <span style={styles.type}>{grant.toolName}</span>
                <span style={styles.detail}>
                  by {grant.by.name ?? grant.by.id} at {grant.at}, {grant.expiresAt ? `until ${grant.expiresAt}` : 'for the thread'}
                  {grant.argsDigest ? ', these arguments only' : ''} · <code>{grant.id}</code>
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  )
}

function decision({ answer }: DevtoolsInterrupt): string {
  if (!answer) return 'pending'
  if (answer.kind === 'approval') return answer.approved ? (answer.editedArgs !== undefined ? 'approved with edits' : 'approved') : `denied${answer.reason ? `: ${answer.reason}` : ''}`
  return answer.kind === 'output' ? 'answered by the browser' : `failed in the browser: ${answer.error}`
}

function expiry({ expiresAt }: DevtoolsInterrupt, now: number): string {
  if (expiresAt === undefined) return 'never expires'
  const left = Date.parse(expiresAt) - now
  return left > 0 ? `expires in ${ago(left)} (${expiresAt})` : `expired ${ago(-left)} ago`
}

function Messages({ messages }: { readonly messages: readonly ThreadMessage[] }) {
  return (
    <ol style={styles.list}>
      {messages.map((message) => (
        <li key={message.id} style={styles.row}>
          <span style={styles.type}>{message.role}</span>
          <span style={styles.detail}>
            {message.role === 'tool' ? `${message.toolName} → ${message.status}: ${truncate(message.content, 120)}` : truncate(message.content, 160)}
            {message.role === 'assistant' && message.toolCalls.map((call) => ` [${call.name} ${truncate(call.arguments, 60)}]`).join('')}
          </span>
        </li>
      ))}
    </ol>
  )
}

function Thread({ snapshot }: { readonly snapshot: DevtoolsSnapshot }) {
  const { head, lease } = snapshot
  return (
    <dl style={styles.grid}>
      <Entry term="version">{head.version}</Entry>
      <Entry term="messages">{head.messageCount}</Entry>
      <Entry term="size">{head.bytes} bytes</Entry>
      <Entry term="created">{new Date(head.createdAt).toISOString()}</Entry>
      <Entry term="updated">{new Date(head.updatedAt).toISOString()}</Entry>
      <Entry term="lease">
        {lease ? `${lease.runId} ${lease.live ? 'live' : 'lapsed'}, renewed ${new Date(lease.renewedAt).toISOString()}, holds until ${new Date(lease.expiresAt).toISOString()}` : 'none: no run holds the thread'}
      </Entry>
      <Entry term="stop requested">{head.stopRequested ?? 'no'}</Entry>
      <Entry term="open step">{snapshot.step ? `${snapshot.step.message.toolCalls.length} calls, ${snapshot.step.results.length} settled, ${snapshot.step.running.length} running, model call ${snapshot.step.steps}` : 'none'}</Entry>
      <Entry term="settled interrupts">{head.resolvedInterruptIds.length}</Entry>
    </dl>
  )
}

function Entry({ term, children }: { readonly term: string; readonly children: ReactNode }) {
  return (
    <>
      <dt style={styles.muted}>{term}</dt>
      <dd style={{ margin: 0 }}>{children}</dd>
    </>
  )
}

function Json({ value }: { readonly value: unknown }) {
  return <pre style={styles.json}>{JSON.stringify(value, null, 2)}</pre>
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text
}

function ago(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`
  return `${Math.round(ms / 60_000)} min`
}

const mono = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace'
const styles = {
  panel: {
    // Below a page's header and above its composer, which stay usable while it is open.
    position: 'fixed',
    right: 12,
    top: 80,
    width: 'min(680px, calc(100vw - 24px))',
    height: 'max(240px, min(520px, calc(100vh - 220px)))',
    display: 'flex',
    flexDirection: 'column',
    background: '#11151c',
    color: '#d8dee9',
    font: `12px/1.45 ${mono}`,
    border: '1px solid #2e3440',
    borderRadius: 8,
    boxShadow: '0 8px 32px rgba(0,0,0,.35)',
    zIndex: 2147483000,
    overflow: 'hidden',
  },
  header: { display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'center', padding: '8px 10px', borderBottom: '1px solid #2e3440' },
  // A long thread id gives way (it is in full in its title), so the close button stays on a narrow screen.
  threadId: { minWidth: 0, flex: '0 1 auto', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  tabs: { display: 'flex', flexWrap: 'wrap', gap: 2, padding: '4px 6px', borderBottom: '1px solid #2e3440' },
  tab: { background: 'transparent', color: '#a3adbd', border: 0, padding: '4px 8px', cursor: 'pointer', font: 'inherit' },
  tabActive: { background: '#2e3440', color: '#eceff4', border: 0, borderRadius: 4, padding: '4px 8px', cursor: 'pointer', font: 'inherit' },
  body: { flex: 1, overflow: 'auto', padding: 10 },
  button: { background: 'transparent', color: 'inherit', border: '1px solid #4c566a', borderRadius: 4, cursor: 'pointer', font: 'inherit' },
  badge: { background: '#2e3440', borderRadius: 4, padding: '0 6px' },
  muted: { color: '#8f9bb3' },
  error: { color: '#ff9b9b' },
  summary: { display: 'flex', gap: 12, margin: '0 0 8px' },
  list: { listStyle: 'none', margin: 0, padding: 0 },
  row: { display: 'flex', gap: 8, padding: '2px 0', borderBottom: '1px solid #1c222c' },
  time: { width: 72, flex: 'none', textAlign: 'right', color: '#8f9bb3' },
  type: { width: 200, flex: 'none', color: '#88c0d0' },
  detail: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  card: { border: '1px solid #2e3440', borderRadius: 6, padding: 8, marginBottom: 8 },
  heading: { margin: '12px 0 4px' },
  grid: { display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '4px 12px', margin: 0 },
  json: { margin: '4px 0', whiteSpace: 'pre-wrap', color: '#a3be8c' },
  frames: { margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-all', color: '#a3adbd' },
} satisfies Record<string, CSSProperties>
