// Warnings about how a handler is set up: each once per process, on Node's channel
// (`process.on('warning')`, silenced by `--no-warnings`), or the console elsewhere.

export interface Warning {
  readonly code: string
  readonly message: string
}

/** Decisions recorded without a secret: said at start (audit hooks set) or when a call first waits for reviewers. */
export const UNSIGNED_DECISIONS: Warning = {
  code: 'TOOLGATE_UNSIGNED_DECISIONS',
  message:
    'createChatHandler: decisions are recorded without a secret (`decisions: { secret }` or `reviewLinks.secret`): their SHA-256 chain catches accidental edits, but anyone who can write the store can rewrite, append or remove records unseen.',
}

const warned = new Set<string>()

/** A warning on Node's channel (`process.on('warning')`, `--no-warnings`), or the console elsewhere; once per process. */
export function warnOnce({ code, message }: { code: string; message: string }): void {
  if (warned.has(code)) return
  warned.add(code)
  const node = (globalThis as { process?: { emitWarning?: (message: string, options: { code: string }) => void } }).process
  if (typeof node?.emitWarning === 'function') node.emitWarning(message, { code })
  else console.warn(`[toolgate] ${message}`)
}
