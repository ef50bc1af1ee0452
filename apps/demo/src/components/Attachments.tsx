import { attachmentUrl, type ThreadAttachment } from '@toolgate/ai/client'
import { threadIdFromUrl } from '../threadUrl.ts'

/** Files a tool returned: images inline, other files as links. Stored ones load from the chat endpoint. */
export function Attachments({ attachments }: { readonly attachments: readonly ThreadAttachment[] }) {
  const threadId = threadIdFromUrl()
  if (!threadId) return null
  return (
    <section className="tool-card__attachments" aria-label="Attachments">
      {attachments.map((attachment, index) => {
        const src = attachmentUrl('/api/chat', threadId, attachment)
        if (!src) return null
        const name = attachment.filename ?? `attachment ${index + 1}`
        return attachment.kind === 'image' ? (
          <img key={src} src={src} alt={name} className="tool-card__image" />
        ) : (
          <a key={src} href={src} download={attachment.filename}>{name}</a>
        )
      })}
    </section>
  )
}
