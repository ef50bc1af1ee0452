/**
 * Thrown while converting for a strict mode when a part of the schema has no strict form that
 * keeps its meaning (a map beside declared properties). `convertSchema` catches it and sends the
 * tool non-strict, with the reason in a `STRICT_DISABLED` warning: dropping what the tool accepts
 * to stay strict would change the tool.
 */
export class StrictUnfit extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(reason)
    this.name = 'StrictUnfit'
  }
}
