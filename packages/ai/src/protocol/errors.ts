/** Stable codes of error responses and `RUN_ERROR` events; apps may switch on them. */
export type ErrorCode =
  | 'INVALID_JSON' // 400: the body is not JSON
  | 'JSON_TOO_DEEP' // 400: the body nests objects and arrays deeper than 64 levels
  | 'INVALID_REQUEST' // 400: the body is JSON of the wrong shape (`path` says where)
  | 'FORBIDDEN' // 403: `authorize` refused this thread
  | 'THREAD_NOT_FOUND' // 404
  | 'INTERRUPT_NOT_FOUND' // 404: no such pending interrupt in this thread
  | 'RUN_NOT_FOUND' // 404: no events of this run are kept (unknown, or expired): read the thread instead
  | 'METHOD_NOT_ALLOWED' // 405
  | 'INTERRUPT_ALREADY_ANSWERED' // 409: the answer was given (and is applied at most once)
  | 'INTERRUPT_EXPIRED' // 410: past its `expiresAt` (limits.interruptTtlMs); send a new message instead
  | 'THREAD_BUSY' // 409: a run is streaming on this thread
  | 'VERSION_CONFLICT' // 409: the thread changed concurrently; reload and retry
  | 'HISTORY_CONFLICT' // 409: an AG-UI client's `messages` contradict the stored thread; reload it
  | 'THREAD_FULL' // 409 (and RUN_ERROR): the thread reached `limits.maxThreadMessages`; start a new thread
  | 'PAYLOAD_TOO_LARGE' // 413
  | 'UNSUPPORTED_MEDIA_TYPE' // 415: send `content-type: application/json`
  | 'ANSWER_MISMATCH' // 422: e.g. a client result for an interrupt that asks for an approval
  | 'INVALID_EDITED_ARGS' // 422: `editedArgs` fail the tool's input schema
  | 'SUBAGENT_MISMATCH' // 422: the answer names a subagent run the interrupt does not belong to
  | 'ATTACHMENT_NOT_FOUND' // 404: no such attachment in this thread
  | 'REVIEWER_REQUIRED' // 403: the interrupt waits for a named reviewer, and the requester may not answer it
  | 'NOT_A_REVIEWER' // 403: the principal is not among the interrupt's reviewers (role or user)
  | 'ALREADY_DECIDED' // 409: this reviewer already approved this interrupt (two-person rule: a second person must)
  | 'REVIEW_LINK_INVALID' // 401: the review link's token is malformed, truncated or altered, or for another thread or interrupt
  | 'REVIEW_LINK_EXPIRED' // 410: the review link is past its expiry
  | 'REVIEW_LINK_USED' // 409: the review link was already used, or its interrupt is settled
  | 'ARGUMENTS_CHANGED' // 409: the arguments changed since the review link was made; it no longer applies
  | 'MCP_APP_NOT_FOUND' // 404: no call of this thread renders that MCP App (unknown call, or its tool has no app)
  | 'TOOL_NOT_FOR_APPS' // 403: an MCP App asked for a tool that is not this handler's server tool visible to apps
  | 'GRANT_NOT_FOUND' // 404: no such grant in this thread (or already revoked)
  | 'DEVTOOLS_DISABLED' // 404: `?devtools` on a handler created without `devtools: true`
  | 'INTERNAL' // 500
  | 'DECISION_RECORD_ALTERED' // 500: a stored decision record does not match its digest or its chain
  | 'STORE_FULL' // 507: the server's store is at its size limit; try again later
  | 'TOO_MANY_RUNS' // 429: the server runs as many conversations at once as it may; retry after `Retry-After` seconds
  | 'TOO_MANY_WATCHERS' // 429: the server holds as many `GET ?watch` requests at once as it may; retry after `Retry-After` seconds
  | 'CONTEXT_INVALID' // 500: the handler's `context` fails a tool's `contextSchema` (the message names the tool and the keys)
  // Only in RUN_ERROR events:
  | 'MODEL_ERROR'
  | 'STORE_ERROR'
  | 'EVENTS_LOST' // a reattached reader cannot be given the run's events without a gap (the store lost some); reload the thread
  | 'RUN_LOST' // a reattached reader's run stopped without finishing (its process died); reload the thread

/** Every error response is JSON of this shape. */
export interface ErrorBody {
  readonly error: {
    readonly code: ErrorCode
    readonly message: string
    /** Where in the request body the problem is, e.g. `resume[0].editedArgs.city`. */
    readonly path?: string
  }
}
