import { useState, type FormEvent, type KeyboardEvent } from 'react'

interface ComposerProps {
  readonly busy: boolean
  readonly onSend: (text: string) => void
  readonly onStop: () => void
}

/** Enter sends, Shift+Enter starts a new line; Stop ends the stream and running browser tools. */
export function Composer({ busy, onSend, onStop }: ComposerProps) {
  const [draft, setDraft] = useState('')
  const submit = (event?: FormEvent) => {
    event?.preventDefault()
    if (draft.trim() === '') return
    onSend(draft)
    setDraft('')
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) submit(event)
  }
  return (
    <form className="composer" onSubmit={submit}>
      <label htmlFor="composer-input" className="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-input"
        className="composer__input"
        rows={1}
        placeholder="Ask something, e.g. “What is the weather in Paris?”"
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {busy ? (
        <button type="button" className="button button--secondary" onClick={onStop}>
          Stop
        </button>
      ) : null}
      <button type="submit" className="button button--primary" disabled={draft.trim() === ''}>
        Send
      </button>
    </form>
  )
}
