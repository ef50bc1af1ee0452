import { callRef, type CallRef } from '../thread/results.ts'
import { ToolError } from '../../errors.ts'
import type { ThreadAttachment, ThreadToolMessage } from '../../protocol/messages.ts'
import type { ToolContentPart, ToolContentResult } from '../../tools/toolResult.ts'
import { decodeBase64 } from '../../util/base64.ts'
import { randomId } from '../../util/randomId.ts'
import type { AttachmentStore, StoredAttachment } from '../thread/attachmentStore.ts'

// Files tools return. The bytes go to an attachment store once, when the result is made; the
// thread, the event stream and the model's history carry references. The chat endpoint serves
// them to readers of the thread.

export interface AttachmentOptions {
  readonly store: AttachmentStore
  readonly threadId: string
  readonly maxBytes: number
}

/**
 * The tool message for a `toolResult()`: files stored and referenced, and what the model reads:
 * the output as JSON, the text parts, and a line per file. (Adapters whose provider takes files
 * in tool results send them too, through `ModelRequest.loadAttachment`; see providers/adapters/toolFiles.ts.)
 */
export async function contentResultMessage(
  call: CallRef,
  result: ToolContentResult,
  options: AttachmentOptions,
  edited: string | undefined,
): Promise<ThreadToolMessage> {
  const texts: string[] = []
  const attachments: ThreadAttachment[] = []
  // Decoded and measured before anything is stored: a result over the limit stores nothing.
  const files = result.content.flatMap((part) => (part.type === 'text' ? [] : [{ part, data: part.data === undefined ? undefined : bytesOf(part.data) }]))
  const total = files.reduce((sum, file) => sum + (file.data?.byteLength ?? 0), 0)
  if (total > options.maxBytes) {
    throw new ToolError(`returned files of ${total} bytes in all; one result may carry at most ${options.maxBytes} bytes (limits.maxAttachmentBytes)`)
  }
  for (const part of result.content) if (part.type === 'text') texts.push(part.text)
  for (const { part, data } of files) attachments.push(await storeFile(part, data, options))
  const output = result.output === undefined ? undefined : JSON.parse(JSON.stringify(result.output))
  const lines = [
    ...(output === undefined ? [] : [JSON.stringify(output)]),
    ...texts,
    ...attachments.map(describeAttachment),
  ]
  const content = lines.join('\n')
  return {
    role: 'tool',
    id: randomId('msg_'),
    ...callRef(call),
    content: edited ? `${edited}\nResult: ${content}` : content,
    status: 'success',
    ...(output === undefined ? {} : { output }),
    ...(edited ? { edited: true } : {}),
    attachments,
  }
}

async function storeFile(part: Exclude<ToolContentPart, { type: 'text' }>, data: Uint8Array | undefined, options: AttachmentOptions): Promise<ThreadAttachment> {
  const base = { type: 'binary' as const, kind: part.type, mimeType: part.mediaType, ...(part.filename ? { filename: part.filename } : {}) }
  if (part.url !== undefined) return { ...base, url: part.url }
  if (part.attachmentId !== undefined) {
    const stored = await options.store.get(options.threadId, part.attachmentId)
    if (!stored) throw new ToolError(`attachment "${part.attachmentId}" is not stored in this thread`)
    return { ...base, id: part.attachmentId, size: stored.data.byteLength }
  }
  if (!data) throw new ToolError(`returned a ${part.type} without data, url or attachmentId`)
  const id = randomId('att_')
  await options.store.put(options.threadId, id, { data, mediaType: part.mediaType, filename: part.filename })
  return { ...base, id, size: data.byteLength }
}

/** The line the model reads for a file. */
export function describeAttachment(attachment: ThreadAttachment): string {
  const name = attachment.filename ?? attachment.url ?? attachment.id
  const size = attachment.size === undefined ? '' : `, ${formatBytes(attachment.size)}`
  return `[${attachment.kind} attached: ${name} (${attachment.mimeType}${size}); the user can see it]`
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

function bytesOf(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? decodeToolData(data) : data
}

/** A tool's base64 `data`, as a data URL or bare, checked so a malformed one fails the call clearly. */
function decodeToolData(text: string): Uint8Array {
  const clean = text.replace(/^data:[^,]*;base64,/, '')
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(clean)) throw new ToolError('returned file `data` that is not base64')
  return decodeBase64(clean.replace(/\s+/g, ''))
}

/** `ModelRequest.loadAttachment` for a run: the thread's own files only. */
export function attachmentLoader(store: AttachmentStore, threadId: string): (attachment: ThreadAttachment) => Promise<StoredAttachment | undefined> {
  return async (attachment) => (attachment.id === undefined ? undefined : store.get(threadId, attachment.id))
}
