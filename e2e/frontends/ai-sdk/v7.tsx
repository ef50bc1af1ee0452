import { useChat } from 'ai-sdk-react7'
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls, type UIMessage } from 'ai7'
import { loadChat, mount, runBrowserTool } from './page.tsx'

// AI SDK 7 (`ai@7`, `@ai-sdk/react@4`, installed here under npm aliases beside version 6).
mount('7', function useToolgateChat(id: string, messages: UIMessage[]) {
  const chat = useChat({
    id,
    messages,
    transport: new DefaultChatTransport({
      api: '/api/chat',
      // A reload during a run follows the run: the thread's run, read as a UI message stream.
      prepareReconnectToStreamRequest: ({ id }) => ({ api: `/api/chat?threadId=${encodeURIComponent(id)}&format=ai-sdk&stream` }),
    }),
    resume: true,
    sendAutomaticallyWhen: (options) => lastAssistantMessageIsCompleteWithApprovalResponses(options) || lastAssistantMessageIsCompleteWithToolCalls(options),
    // A stale tab's answer (another tab answered first) is refused: show the thread as it was decided.
    onError: (error) => {
      if (!error.message.includes('INTERRUPT_ALREADY_ANSWERED')) return
      void loadChat(id).then(({ messages }) => {
        chat.setMessages(messages as UIMessage[])
        chat.clearError()
      })
    },
    onToolCall: ({ toolCall }) => {
      if (toolCall.dynamic) return
      const output = runBrowserTool(toolCall.toolName, toolCall.input)
      if (output !== undefined) void chat.addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output })
    },
  })
  return chat
})
