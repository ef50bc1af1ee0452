/**
 * An id for a message this client makes before the server names it: the user's (the server stores
 * it under its own id, which a reload shows), or the assistant's that holds a call sent without a
 * parent message. It is a key only, unique among the messages shown: 128 random bits, like the
 * server's ids, but without `randomId`'s pool of random bytes (drawn in batches for the server's
 * speed), which would cost every page for the one or two ids a turn makes here.
 */
export function localId(prefix: string): string {
  return prefix + Array.from(crypto.getRandomValues(new Uint32Array(4)), (n) => n.toString(36)).join('')
}
