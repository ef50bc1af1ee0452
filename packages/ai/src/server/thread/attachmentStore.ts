// Where the files tools return live, beside the threads (each store's own, shared or in memory):
// the contract the stores implement, as threadStore.ts is the threads'. Written by run/attachments.ts.

/** A stored file. */
export interface StoredAttachment {
  readonly data: Uint8Array
  readonly mediaType: string
  readonly filename?: string | undefined
}

/** Where attachments live. Ids are made by the runtime (unguessable); a store keeps them per thread. */
export interface AttachmentStore {
  put(threadId: string, id: string, attachment: StoredAttachment): Promise<void>
  get(threadId: string, id: string): Promise<StoredAttachment | undefined>
}
