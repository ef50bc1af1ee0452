import type { ThreadAttachment } from '../../protocol/messages.ts'

/**
 * Where the browser loads an attachment from: the URL the tool returned, or the chat endpoint's
 * `?threadId=&attachmentId=` for a stored file (the endpoint checks the reader may see the thread).
 */
export function attachmentUrl(endpoint: string, threadId: string, attachment: ThreadAttachment): string | undefined {
  if (attachment.url !== undefined) return attachment.url
  if (attachment.id === undefined) return undefined
  const separator = endpoint.includes('?') ? '&' : '?'
  return `${endpoint}${separator}threadId=${encodeURIComponent(threadId)}&attachmentId=${encodeURIComponent(attachment.id)}`
}
