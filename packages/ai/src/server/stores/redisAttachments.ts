import { decodeBase64, encodeBase64 } from '../../util/base64.ts'
import type { AttachmentStore, StoredAttachment } from '../thread/attachmentStore.ts'

// A thread's files in one Redis hash beside its head and messages (same hash slot), field = the
// attachment id, value = JSON with the bytes in base64 (a client decodes replies as UTF-8 text, so
// raw bytes would not survive). The hash shares the thread's TTL: a file is given as much as the
// thread's commit script gives the thread when it moves its TTL (never less than the head has
// left), and that script moves both, so files live as long as the thread that refers to them.

const PUT = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`

export interface RedisAttachmentsDeps {
  readonly script: (source: string, keys: string[], args: string[]) => Promise<unknown>
  readonly send: (args: string[], operation?: string) => Promise<unknown>
  readonly filesKey: (threadId: string) => string
  /** The TTL a file is given, in ms (as text). */
  readonly ttl: string
}

export function redisAttachments({ script, send, filesKey, ttl }: RedisAttachmentsDeps): AttachmentStore {
  return {
    async put(threadId, id, attachment) {
      const value = JSON.stringify({ m: attachment.mediaType, f: attachment.filename, d: encodeBase64(attachment.data) })
      await script(PUT, [filesKey(threadId)], [id, value, ttl])
    },
    async get(threadId, id) {
      const json = (await send(['HGET', filesKey(threadId), id], 'HGET attachment')) as string | null
      if (json == null) return undefined
      const stored = JSON.parse(json) as { m: string; f?: string; d: string }
      const attachment: StoredAttachment = { data: decodeBase64(stored.d), mediaType: stored.m, ...(stored.f === undefined ? {} : { filename: stored.f }) }
      return attachment
    },
  }
}
