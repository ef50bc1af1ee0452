// Forms a person fills in: an approval's (`ApprovalForm`, its fields from the tool's schema) and a client tool's request to the user.
export { ApprovalForm, type ApprovalFormState, type FormApproval } from './approvalForm.ts'
export { formOfPendingApproval } from './pendingApprovalForm.ts'
export type { FieldKind, FieldPath, FormField } from './formFields.ts'
export { userRequests, type UserRequest, type UserRequests } from './userRequests.ts'
