/**
 * What reading a stored thread needs, one chunk loaded when a thread is read (`threadRestore.ts`):
 * checking the snapshot the server sent, and rebuilding the conversation from it.
 */
export { readThread } from './readThread.ts'
export { fromSnapshot } from './fromSnapshot.ts'
