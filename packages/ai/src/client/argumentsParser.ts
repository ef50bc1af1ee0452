import type { PartialJsonParser } from './partialJson.ts'

type PartialJson = typeof import('./partialJson.ts')

let loading: Promise<PartialJson> | undefined
let loaded: PartialJson | undefined

/**
 * Loads the partial JSON parser, once. It is the client's largest module and only a call whose
 * arguments stream needs it, so it stays out of the page's startup bundle: the run stream awaits
 * this before it hands on a `TOOL_CALL_START`, and the draft creates parsers synchronously after.
 */
export function loadArgumentsParser(): Promise<PartialJson> {
  return (loading ??= import('./partialJson.ts').then(
    (module) => (loaded = module),
    (error: unknown) => {
      loading = undefined // a chunk that failed to load (a network blip) is asked for again next time
      throw error
    },
  ))
}

/** A parser for arguments about to stream; `loadArgumentsParser()` has resolved before any call is added. */
export function newArgumentsParser(): PartialJsonParser {
  if (!loaded) throw new Error('The partial JSON parser was used before loadArgumentsParser() resolved')
  return new loaded.PartialJsonParser()
}

/** See `finishPartialJson`; a parser exists only once the module is loaded. */
export function finishArguments(parser: PartialJsonParser): { value: unknown } | { error: string } {
  return loaded!.finishPartialJson(parser)
}
