/**
 * Reading what the server stored of a thread, one chunk loaded when first needed (`threadRestore.ts`):
 * the stored thread (its snapshot checked, the conversation rebuilt from it with `fromSnapshot`), as
 * after a reload or a resync, and `ResumeAccepted`, the interrupts a thread still waits on once some
 * answers are stored.
 */
export { readThread } from '../restore/readThread.ts'
export { fromSnapshot } from '../restore/fromSnapshot.ts'
export { readAccepted } from '../restore/readAccepted.ts'
