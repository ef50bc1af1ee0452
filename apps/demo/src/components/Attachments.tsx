import { attachmentUrl } from '@toolgate/ai/client'
import type { ThreadAttachment } from '@toolgate/ai/protocol'
import { createContext, useContext } from 'react'

/**
 * The chat's thread id, from `useChat` rather than the address bar: the bar is updated in an effect,
 * after the render that may already show a tool's files.
 */
export const ThreadIdContext = createContext<string | undefined>(undefined)

/** Files a tool returned: images inline, other files as links. Stored ones load from the chat endpoint. */
export function Attachments({ attachments }: { readonly attachments: readonly ThreadAttachment[] }) {
  const threadId = useContext(ThreadIdContext)
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
