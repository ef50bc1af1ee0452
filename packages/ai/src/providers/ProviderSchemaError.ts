import { ToolgateError } from '../errors.ts'

export type ProviderSchemaErrorCode =
  /** The schema's root cannot describe an object of arguments. */
  | 'ROOT_NOT_OBJECT'
  /** A `$ref` points nowhere in the document (or outside it). */
  | 'UNRESOLVED_REF'
  /** The schema recurses where no conversion can express it (a reference that only aliases itself). */
  | 'RECURSIVE_SCHEMA'
  /** Something that should be a schema is not one (a string where a subschema belongs, ...). */
  | 'INVALID_SCHEMA'
  | 'UNKNOWN_TARGET'
  /** A tool name that no provider name can be made from (empty). */
  | 'INVALID_TOOL_NAME'
  /** Two tools map to the same provider name, so a call could not be routed back. */
  | 'NAME_COLLISION'

/** A schema or tool that cannot be converted for a provider. `path` is a JSON Pointer into the input. */
export class ProviderSchemaError extends ToolgateError {
  declare readonly code: ProviderSchemaErrorCode
  readonly path: string

  constructor(code: ProviderSchemaErrorCode, path: string, message: string) {
    super(code, `${message} (at ${path === '' ? '#' : path})`)
    this.path = path
  }
}
