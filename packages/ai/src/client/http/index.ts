// Requests to the chat endpoint: posting, sending with a clear error when one fails, reading JSON, attachment URLs.
// (Reading a failed response is a lazily loaded chunk of its own: `chunks/`.)
export { isEventStream, postChat, send } from './transport.ts'
export { readJson } from './readJson.ts'
export { attachmentUrl } from './attachmentUrl.ts'
