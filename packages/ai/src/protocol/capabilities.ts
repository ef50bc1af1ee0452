/**
 * `GET <endpoint>?capabilities`: AG-UI `AgentCapabilities` (@ag-ui/core 1.0), the fields Toolgate
 * declares. Absent fields mean "not declared", as the spec reads them.
 */
export interface ChatCapabilities {
  readonly identity: { readonly name: string; readonly type: 'toolgate' }
  readonly transport: { readonly streaming: true; readonly resumable: true }
  readonly tools: { readonly supported: boolean; readonly parallelCalls: true; readonly clientProvided: boolean }
  readonly humanInTheLoop: {
    readonly supported: true
    readonly approvals: true
    readonly interrupts: true
    readonly approveWithEdits: true
    /** Deny with a reason the model reads. */
    readonly feedback: true
  }
  /** Tools may return images (`toolResult()`), streamed as AG-UI binary content parts. */
  readonly multimodal: { readonly output: { readonly image: true } }
}
