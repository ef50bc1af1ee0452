import { ToolgateError } from '../errors.ts'

// Results richer than JSON: a tool may return content parts (text, images, files) beside or
// instead of its output. Files are bytes (or base64) with a media type, a URL, or the id of an
// attachment already stored. The chat runtime stores bytes in its attachment store and keeps
// references in the thread; see server/run/attachments.ts.

/** A file as a tool hands it over: bytes (a `Uint8Array` or base64 text), a URL, or a stored attachment's id. */
export type ToolFileSource =
  | { readonly data: Uint8Array | string; readonly url?: undefined; readonly attachmentId?: undefined }
  | { readonly url: string; readonly data?: undefined; readonly attachmentId?: undefined }
  | { readonly attachmentId: string; readonly data?: undefined; readonly url?: undefined }

export type ToolContentPart =
  | { readonly type: 'text'; readonly text: string }
  | ({ readonly type: 'image' | 'file'; readonly mediaType: string; readonly filename?: string } & ToolFileSource)

/** What `toolResult()` makes: the output (validated by the output schema as usual) and the content. */
export interface ToolContentResult<TOutput = unknown> {
  readonly output: TOutput
  readonly content: readonly ToolContentPart[]
}

// A global symbol, like the tools' internals: two copies of the package still recognise each other's results.
const CONTENT_RESULT = Symbol.for('@toolgate/ai.toolResult')

/**
 * A result with content parts, from `execute`:
 *
 * ```ts
 * return toolResult({ output: { points: 12 }, content: [{ type: 'image', mediaType: 'image/png', data: png }] })
 * ```
 *
 * `output` is what the model reads as JSON and the output schema checks (omit it for content only).
 */
export function toolResult<TOutput = undefined>(result: { readonly output?: TOutput; readonly content: readonly ToolContentPart[] }): ToolContentResult<TOutput> {
  if (typeof result !== 'object' || result === null || !Array.isArray(result.content)) {
    throw new ToolgateError('TOOL_RESULT_INVALID', 'toolResult() needs `{ output?, content: [...] }`')
  }
  for (const [index, part] of result.content.entries()) checkPart(part, `content[${index}]`)
  return branded(result.output as TOutput, result.content)
}

/**
 * A content result with its output replaced by the validated one. Its parts were checked when
 * `toolResult()` made it; this stays small, since the browser's tools validate outputs too.
 */
export function withValidatedOutput<TOutput>(result: ToolContentResult, output: TOutput): ToolContentResult<TOutput> {
  return branded(output, result.content)
}

function branded<TOutput>(output: TOutput, content: readonly ToolContentPart[]): ToolContentResult<TOutput> {
  const value = { output, content: Object.freeze([...content]) }
  Object.defineProperty(value, CONTENT_RESULT, { value: true })
  return Object.freeze(value)
}

export function isToolContentResult(value: unknown): value is ToolContentResult {
  return typeof value === 'object' && value !== null && (value as { [CONTENT_RESULT]?: boolean })[CONTENT_RESULT] === true
}

const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+$/

function checkPart(part: ToolContentPart, path: string): void {
  const invalid = (problem: string) => new ToolgateError('TOOL_RESULT_INVALID', `toolResult(): \`${path}\` ${problem}`)
  if (typeof part !== 'object' || part === null) throw invalid('must be an object')
  if (part.type === 'text') {
    if (typeof part.text !== 'string') throw invalid('needs `text` as a string')
    return
  }
  if (part.type !== 'image' && part.type !== 'file') throw invalid(`has an unknown type ${JSON.stringify((part as { type?: unknown }).type)}; use text, image or file`)
  if (typeof part.mediaType !== 'string' || !MEDIA_TYPE.test(part.mediaType)) throw invalid('needs a `mediaType` such as image/png')
  if (part.type === 'image' && !part.mediaType.startsWith('image/')) throw invalid(`is an image with media type ${part.mediaType}`)
  const sources = [part.data !== undefined, part.url !== undefined, part.attachmentId !== undefined].filter(Boolean).length
  if (sources !== 1) throw invalid('needs exactly one of `data` (bytes or base64), `url` or `attachmentId`')
  if (part.data !== undefined && typeof part.data !== 'string' && !(part.data instanceof Uint8Array)) throw invalid('has `data` that is neither a Uint8Array nor base64 text')
  if (part.url !== undefined && !/^https?:\/\//i.test(part.url)) throw invalid('needs an http(s) `url`')
}
