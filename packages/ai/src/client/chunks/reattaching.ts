/**
 * The chunk that catches up with a run the server still holds (`reattaching` in `index.ts`):
 * attaching to it again after its stream dropped or a page reloaded, outliving one whose events
 * were lost, and posting again while one this client interrupted still holds the thread.
 */
export { outlive, reattach } from '../stream/reattach.ts'
export { postWhileBusy } from '../stream/postWhileBusy.ts'
