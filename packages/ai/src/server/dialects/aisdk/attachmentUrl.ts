import type { ThreadAttachment } from '../../../protocol/messages.ts'

/** Where the browser fetches a file a tool returned: the endpoint serves stored ones (`GET ?threadId&attachmentId`). */
export function attachmentUrl(attachment: ThreadAttachment, endpoint: string, threadId: string): string | undefined {
  if (attachment.url !== undefined) return attachment.url
  if (attachment.id === undefined) return undefined
  return `${endpoint}?threadId=${encodeURIComponent(threadId)}&attachmentId=${encodeURIComponent(attachment.id)}`
}
