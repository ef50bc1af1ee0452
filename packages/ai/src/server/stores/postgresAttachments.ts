import type { AttachmentStore, StoredAttachment } from '../thread/attachmentStore.ts'

// A thread's files are rows of `<table>_attachments`, bytes in a `bytea`. They reference their
// thread (ON DELETE CASCADE), so `purgeExpired()` and an expired id used again take them along,
// and reads skip the files of an expired thread: files live as long as the thread that refers to them.

export interface PostgresAttachmentsDeps {
  readonly query: (operation: string, text: string, values: unknown[]) => Promise<{ rows: any[] }>
  readonly table: string
}

export function postgresAttachments({ query, table: t }: PostgresAttachmentsDeps): AttachmentStore {
  return {
    async put(threadId, id, attachment) {
      await query('put attachment', `INSERT INTO ${t}_attachments (thread_id, id, media_type, filename, data) VALUES ($1, $2, $3, $4, $5)`, [
        threadId,
        id,
        attachment.mediaType,
        attachment.filename ?? null,
        attachment.data,
      ])
    },
    async get(threadId, id) {
      const { rows } = await query(
        'get attachment',
        `SELECT a.media_type, a.filename, a.data FROM ${t}_attachments a JOIN ${t}_threads th ON th.id = a.thread_id
         WHERE a.thread_id = $1 AND a.id = $2 AND th.expires_at > now()`,
        [threadId, id],
      )
      const row = rows[0]
      if (!row) return undefined
      const attachment: StoredAttachment = {
        // pg gives a Buffer, PGlite a Uint8Array: one shape out.
        data: new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength),
        mediaType: String(row.media_type),
        ...(row.filename == null ? {} : { filename: String(row.filename) }),
      }
      return attachment
    },
  }
}
