/** A module loaded when first needed instead of with the page: `load()` it (once), or `get()` it if it has loaded. */
export interface Lazy<T> {
  load(): Promise<T>
  /** The module once `load()` has resolved; `undefined` before. */
  get(): T | undefined
}

export function lazy<T>(importer: () => Promise<T>): Lazy<T> {
  let loading: Promise<T> | undefined
  let loaded: T | undefined
  return {
    load: () =>
      (loading ??= importer().then(
        (module) => (loaded = module),
        (error: unknown) => {
          loading = undefined // a chunk that failed to load (a network blip) is asked for again next time
          throw error
        },
      )),
    get: () => loaded,
  }
}

/**
 * For a caller whose flow loaded the chunk before it got here (the stream loads a chunk before it
 * hands on what needs it): a chunk that is still missing is a bug in that order, said as such.
 */
export function notLoaded(chunk: string): never {
  throw new Error(`client chunk ${chunk} used before it loaded`)
}
