import type { ModelRequest } from '../../model/chatModel.ts'
import type { ThreadAttachment, ThreadToolMessage } from '../../protocol/messages.ts'

// Files that tools returned, for the providers that take them inside a tool result. Each adapter
// says which media types its API accepts; the rest stay what every model reads anyway: the line
// per file in the result's text (see `describeAttachment` in the server).

/** A file to send with a tool result: its bytes as base64, or the address the tool returned. */
export type ToolFile =
  | { readonly kind: ThreadAttachment['kind']; readonly mediaType: string; readonly filename?: string; readonly base64: string }
  | { readonly kind: ThreadAttachment['kind']; readonly mediaType: string; readonly filename?: string; readonly url: string }

/** Which files a provider takes in a tool result, by media type (and whether it is sent as bytes or as a URL). */
export type AcceptsFile = (mediaType: string, source: 'bytes' | 'url') => boolean

/**
 * The files of every tool result in `messages` that the provider accepts, loaded once per
 * request; none when the adapter's `toolResultFiles` is `false`. A file whose bytes are gone
 * (expired, another store) is left out: the text line stays.
 */
export async function loadToolFiles(
  request: ModelRequest,
  accepts: AcceptsFile,
  toolResultFiles: boolean | undefined,
): Promise<ReadonlyMap<ThreadToolMessage, readonly ToolFile[]>> {
  const files = new Map<ThreadToolMessage, ToolFile[]>()
  if (toolResultFiles === false) return files
  for (const message of request.messages) {
    if (message.role !== 'tool' || !message.attachments?.length) continue
    const loaded: ToolFile[] = []
    for (const attachment of message.attachments) {
      const file = await loadFile(attachment, request, accepts)
      if (file) loaded.push(file)
    }
    if (loaded.length > 0) files.set(message, loaded)
  }
  return files
}

async function loadFile(attachment: ThreadAttachment, request: ModelRequest, accepts: AcceptsFile): Promise<ToolFile | undefined> {
  const named = { kind: attachment.kind, mediaType: attachment.mimeType, ...(attachment.filename ? { filename: attachment.filename } : {}) }
  if (attachment.url !== undefined) return accepts(attachment.mimeType, 'url') ? { ...named, url: attachment.url } : undefined
  if (!accepts(attachment.mimeType, 'bytes') || !request.loadAttachment) return undefined
  const stored = await request.loadAttachment(attachment)
  return stored ? { ...named, mediaType: stored.mediaType, base64: encodeBase64(stored.data) } : undefined
}

/** A `data:` URL of a file (OpenAI takes files that way). */
export function dataUrlOf(file: ToolFile): string {
  return 'url' in file ? file.url : `data:${file.mediaType};base64,${file.base64}`
}

/** Base64 without `Buffer`, so adapters run on Workers and in browsers alike. */
function encodeBase64(bytes: Uint8Array): string {
  let binary = ''
  const CHUNK = 0x8000 // below the argument limit of `fromCharCode`
  for (let start = 0; start < bytes.length; start += CHUNK) binary += String.fromCharCode(...bytes.subarray(start, start + CHUNK))
  return btoa(binary)
}
