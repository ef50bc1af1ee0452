import { HttpError } from './errors.ts'

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
