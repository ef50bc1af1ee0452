// What the server stored of a thread: its snapshot read and checked, the conversation rebuilt from it,
// and `ResumeAccepted` (answers stored, others still missing). Loaded as a chunk (`chunks/storedThread.ts`).
export { readThread } from './readThread.ts'
export { fromSnapshot } from './fromSnapshot.ts'
export { readAccepted } from './readAccepted.ts'
