/**
 * Stable codes of conversion warnings. A conversion is lossy when the provider's schema no longer
 * enforces every constraint of the tool's own: a constraint or format now only text in the
 * description, "exactly one" loosened to "any of", a conflicting `allOf` branch, typed extra
 * properties, a recursion cut, absence that cannot be told from `null`, root branches dropped.
 * Renames, encodings `fromProviderArgs` undoes, annotations in the description and strict mode
 * turned off are not losses. (The runtime validates every call against the tool's own schema
 * either way: lossy means the model may send more that the runtime then refuses.)
 */
export type ProviderWarningCode =
  /** A constraint the dialect cannot carry is now a sentence in the description. */
  | 'CONSTRAINT_IN_DESCRIPTION'
  /** A `format` outside the provider's list is now a sentence in the description. */
  | 'FORMAT_IN_DESCRIPTION'
  /** `default`, `examples` or `deprecated` moved into the description. */
  | 'ANNOTATION_IN_DESCRIPTION'
  /** `oneOf` became `anyOf`; "exactly one" is in the description. */
  | 'ONE_OF_AS_ANY_OF'
  /** `allOf` branches disagree on a keyword; the first one is kept. */
  | 'ALL_OF_CONFLICT'
  /** Non-string enum values are sent as strings and mapped back. */
  | 'ENUM_AS_STRINGS'
  /** A property name the provider refuses is renamed and mapped back. */
  | 'PROPERTY_RENAMED'
  /** The tool name is renamed for the provider and mapped back. */
  | 'TOOL_RENAMED'
  /** A value of no fixed shape travels as a JSON string and is parsed back. */
  | 'JSON_ENCODED'
  /** An object with free keys travels as a list of `{ key, value }` entries. */
  | 'MAP_AS_ENTRIES'
  /** A tuple travels as an object `{ _0, _1, ... }`. */
  | 'TUPLE_AS_OBJECT'
  /** The root could not be an object of arguments by itself and is wrapped in `{ input }`. */
  | 'ROOT_WRAPPED'
  /** Root types or branches that cannot be arguments (not objects) are dropped. */
  | 'ROOT_NARROWED'
  /** An object open to extra keys is closed; the extra keys had no schema. */
  | 'OPEN_OBJECT_CLOSED'
  /** Typed extra properties (`additionalProperties`/`patternProperties` beside `properties`) cannot be sent. */
  | 'EXTRA_PROPERTIES_DROPPED'
  /** A recursive schema is cut at a depth: deeper values cannot be sent. */
  | 'RECURSION_CUT'
  /** An optional, nullable property must always be sent in strict mode: "absent" cannot be told from `null`. */
  | 'ABSENCE_NOT_EXPRESSIBLE'
  /** A part of the schema that accepts no value is removed. */
  | 'UNSATISFIABLE_REMOVED'
  /** An unknown or vendor keyword that means nothing to the provider is dropped. */
  | 'KEYWORD_DROPPED'
  /** The schema exceeds the provider's strict-mode limits; the tool is sent with `strict: false`. */
  | 'STRICT_DISABLED'
  /** The output schema cannot be published for this target and is left out. */
  | 'OUTPUT_SCHEMA_OMITTED'

export interface ProviderWarning {
  /** JSON Pointer into the converted input: the keyword or node the warning is about. */
  readonly path: string
  readonly code: ProviderWarningCode
  readonly message: string
}

const LOSSY_CODES: ReadonlySet<ProviderWarningCode> = new Set<ProviderWarningCode>([
  'CONSTRAINT_IN_DESCRIPTION',
  'FORMAT_IN_DESCRIPTION',
  'ONE_OF_AS_ANY_OF',
  'ALL_OF_CONFLICT',
  'ROOT_NARROWED',
  'EXTRA_PROPERTIES_DROPPED',
  'RECURSION_CUT',
  'ABSENCE_NOT_EXPRESSIBLE',
])

export function isLossy(warnings: readonly ProviderWarning[]): boolean {
  return warnings.some((warning) => LOSSY_CODES.has(warning.code))
}

/** Collects warnings once per code and path, in the order they were found. */
export class WarningLog {
  readonly #byKey = new Map<string, ProviderWarning>()

  add(code: ProviderWarningCode, path: string, message: string): void {
    const key = `${code} ${path}`
    if (!this.#byKey.has(key)) this.#byKey.set(key, { path, code, message })
  }

  list(): ProviderWarning[] {
    return [...this.#byKey.values()]
  }
}

/** The same warnings, with paths moved under `prefix` (e.g. `/inputSchema`). */
export function underPointer(prefix: string, warnings: readonly ProviderWarning[]): ProviderWarning[] {
  return warnings.map((warning) => ({ ...warning, path: prefix + warning.path }))
}
