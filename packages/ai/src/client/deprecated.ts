import * as fields from './forms/formFields.ts'

// Form helpers kept for one release so apps keep working; each says what replaces it. Remove in
// the next minor release, with its CHANGELOG line. (`new ChatClient` is kept in createChatClient.ts.)

/** @deprecated Read `form.getSnapshot().fields` of an `ApprovalForm`. */
export const formFields: typeof fields.formFields = fields.formFields

/** @deprecated Use `form.problemOf(field)` of an `ApprovalForm`. */
export const fieldProblem: typeof fields.fieldProblem = fields.fieldProblem

/** @deprecated Use `field.name`: every `FormField` carries its path as text. */
export const pathName: typeof fields.pathName = fields.pathName

/** @deprecated Use `form.valueAt(path)` of an `ApprovalForm`. */
export const valueAt: typeof fields.valueAt = fields.valueAt
