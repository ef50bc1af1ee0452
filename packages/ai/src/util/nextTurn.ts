/**
 * Runs `task` once the current turn of the event loop is done (after its I/O callbacks' promises),
 * so frames written in one turn go out together. Only Node-compatible runtimes get `setImmediate`:
 * Next.js' Edge runtime defines one that throws.
 */
export const nextTurn: (task: () => void) => void =
  (globalThis as { process?: { release?: { name?: string } } }).process?.release?.name === 'node' && typeof setImmediate === 'function'
    ? (task) => void setImmediate(task)
    : (task) => void setTimeout(task, 0)
