import type { AnyTool } from '../tools/types.ts'
import { ChatClient as Client } from './ChatClient.ts'
import * as fields from './formFields.ts'
import type { ChatClientOptions } from './options.ts'

// Names kept for one release so apps keep working; each says what replaces it. Remove in the next
// minor release, with its CHANGELOG line.

/**
 * A chat as an external store: `subscribe` and `getSnapshot` let any framework bind it, and the
 * snapshot is immutable and the same object until something changes. Make one with `createChatClient`.
 */
export type ChatClient<TTools extends readonly AnyTool[] = readonly AnyTool[]> = Client<TTools>

/** `new ChatClient(options)`, the same as `createChatClient(options)`. */
export const ChatClient: {
  /** @deprecated Use `createChatClient(options)`, the one way to make a client; the class stays as a type. */
  new <const TTools extends readonly AnyTool[] = readonly AnyTool[]>(options: ChatClientOptions<TTools>): Client<TTools>
} = Client

/** @deprecated Read `form.getSnapshot().fields` of an `ApprovalForm`. */
export const formFields: typeof fields.formFields = fields.formFields

/** @deprecated Use `form.problemOf(field)` of an `ApprovalForm`. */
export const fieldProblem: typeof fields.fieldProblem = fields.fieldProblem

/** @deprecated Use `field.name`: every `FormField` carries its path as text. */
export const pathName: typeof fields.pathName = fields.pathName

/** @deprecated Use `form.valueAt(path)` of an `ApprovalForm`. */
export const valueAt: typeof fields.valueAt = fields.valueAt
