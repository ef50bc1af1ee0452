/** A module loaded when first needed instead of with the page: `load()` (once) before `get()`. */
export interface Lazy<T> {
  load(): Promise<T>
  /** The module once `load()` has resolved; `undefined` before (what `pendingForm.ts` checks; other callers load first). */
  get(): T
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
    get: () => loaded!,
  }
}
