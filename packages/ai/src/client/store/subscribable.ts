/**
 * The one base of the client's stores (`ChatClient`, `ApprovalForm`, `userRequests`), after
 * TanStack Query's `Subscribable`: a set of listeners, a bound `subscribe` that fits React's
 * `useSyncExternalStore`, and `notify` for the store, the one writer of its state.
 */
export class Subscribable {
  readonly #listeners = new Set<() => void>()

  /** Calls `listener` after each change; returns the function that unsubscribes it. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  /**
   * Calls every listener subscribed when the change happened (one that unsubscribes meanwhile,
   * too). A listener that throws is the app's bug, reported as a browser reports an event
   * listener's (uncaught, in a task of its own): it must not stop the others, nor the store's
   * work that notified (a stream half read, a command that would never resolve).
   */
  protected notify(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener()
      } catch (error) {
        setTimeout(() => {
          throw error
        })
      }
    }
  }
}
