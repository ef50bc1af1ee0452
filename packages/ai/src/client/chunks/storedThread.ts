/**
 * The chunk that reads what the server stored of a thread (`storedThread` in `index.ts`): the
 * stored thread (its snapshot checked, the conversation rebuilt from it with `fromSnapshot`), as
 * after a reload or a resync, and `ResumeAccepted`, the interrupts a thread still waits on once
 * some answers are stored.
 */
export { fromSnapshot, readAccepted, readThread } from '../restore/index.ts'
