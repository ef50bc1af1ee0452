// A decision, inside a thread update, to write nothing: the head it was given no longer calls for
// the change (another request made it, or the run it was about is alive again).

/** Thrown inside a thread update to leave the thread as it is. */
export class Unchanged extends Error {}
