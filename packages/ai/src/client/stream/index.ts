// Following runs over HTTP (`RunStream`): posting, reading a run's events, attaching again after a
// drop (`reattach.ts`, a lazily loaded chunk), and the signals it hands the client.
export { RunStream } from './runStream.ts'
export type { RunCursor, StreamSignal } from './streamSignal.ts'
export type { ReadEvent } from './parseEvent.ts'
