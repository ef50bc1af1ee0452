import { HttpError } from './errors.ts'

export interface ChatLimits {
  /** Largest request body accepted; larger ones get 413. Default 1 MB. */
  readonly maxBodyBytes?: number
  /** Deny reasons and client error texts are cut to this many characters. Default 500. */
  readonly maxReasonLength?: number
  /** A server tool that runs longer is aborted and the model told so. Default 30 s. */
  readonly toolTimeoutMs?: number
  /**
   * How long a run may hold its thread without writing it (it writes after each round of tool
   * calls). Only matters when a process died mid-run: after this, the thread takes new messages
   * again. Default 10 minutes.
   */
  readonly runLeaseMs?: number
}

export type ResolvedLimits = Required<ChatLimits>

export function resolveLimits(limits: ChatLimits = {}): ResolvedLimits {
  return {
    maxBodyBytes: limits.maxBodyBytes ?? 1024 * 1024,
    maxReasonLength: limits.maxReasonLength ?? 500,
    toolTimeoutMs: limits.toolTimeoutMs ?? 30_000,
    runLeaseMs: limits.runLeaseMs ?? 10 * 60_000,
  }
}

/**
 * Reads a JSON body without ever buffering more than `maxBytes`. Requiring a JSON content type
 * also makes cross-site form posts impossible (they would need a CORS preflight).
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get('content-type') ?? ''
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with `content-type: application/json`')
  }
  const declared = Number(request.headers.get('content-length'))
  if (declared > maxBytes) throw tooLarge(maxBytes)

  const text = await readText(request, maxBytes)
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, 'INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`)
  }
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return ''
  const reader = request.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    size += value.byteLength
    if (size > maxBytes) {
      reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    text += decoder.decode(value, { stream: true })
  }
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${maxBytes} bytes`)
}

/** Cuts user-supplied text the model will read, so one answer cannot flood the context. */
export function capText(text: string, maxLength: number): string {
  const chars = [...text]
  return chars.length <= maxLength ? text : `${chars.slice(0, maxLength).join('')}…`
}
