import * as ai6 from 'ai'
import * as ai7 from 'ai7'
import type { ChatState, ChatStatus, UIMessage } from 'ai'

// What every test of the AI SDK's own chat (AbstractChat with DefaultChatTransport, as `useChat`
// runs it) needs: both major versions (7 is an npm alias; both speak the same protocol), and the
// chat state `useChat` keeps in React, kept in memory.

export type Sdk = typeof ai6

export const SDKS: [string, Sdk][] = [
  ['6', ai6],
  ['7', ai7 as unknown as Sdk],
]

export class MemoryChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready'
  error: Error | undefined = undefined
  messages: UIMessage[]
  constructor(messages: UIMessage[] = []) {
    this.messages = messages
  }
  pushMessage = (message: UIMessage) => void (this.messages = [...this.messages, message])
  popMessage = () => void (this.messages = this.messages.slice(0, -1))
  replaceMessage = (index: number, message: UIMessage) => void (this.messages = this.messages.map((old, at) => (at === index ? message : old)))
  snapshot = <T,>(value: T): T => structuredClone(value)
}
