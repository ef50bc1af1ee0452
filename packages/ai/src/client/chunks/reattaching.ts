/** The chunk that attaches to a run again after its stream dropped or a page reloaded (`reattaching` in `index.ts`), and outlives a run whose events were lost. */
export { outlive, reattach } from '../stream/reattach.ts'
