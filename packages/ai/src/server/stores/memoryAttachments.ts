import type { StoredAttachment, AttachmentStore } from '../thread/attachmentStore.ts'
import { InvalidOptionError } from '../../errors.ts'

export interface MemoryAttachmentStoreOptions {
  /** Bytes kept at most; the oldest attachments go first. Default 256 MB. */
  readonly maxBytes?: number
}

/** The memory attachment stores made here, so the handler can tell one beside a shared thread store. */
const inMemory = new WeakSet<AttachmentStore>()

/** Whether `store` is a `memoryAttachmentStore()`: its files are this process's only. */
export function isMemoryAttachmentStore(store: AttachmentStore): boolean {
  return inMemory.has(store)
}

/** Attachments in this process's memory (lost on restart): the default beside `memoryStore()`, and for tests. */
export function memoryAttachmentStore(options: MemoryAttachmentStoreOptions = {}): AttachmentStore {
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new InvalidOptionError('memoryAttachmentStore', 'maxBytes', 'must be a positive integer')
  const entries = new Map<string, StoredAttachment>()
  let bytes = 0
  const store: AttachmentStore = {
    async put(threadId, id, attachment) {
      const data = attachment.data.slice() // a copy: the tool may reuse its buffer
      entries.set(`${threadId}\u0000${id}`, Object.freeze({ ...attachment, data }))
      bytes += data.byteLength
      for (const [key, entry] of entries) {
        if (bytes <= maxBytes) break
        entries.delete(key)
        bytes -= entry.data.byteLength
      }
    },
    async get(threadId, id) {
      return entries.get(`${threadId}\u0000${id}`)
    },
  }
  inMemory.add(store)
  return store
}
