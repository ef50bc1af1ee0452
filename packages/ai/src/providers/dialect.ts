import type { JsonSchema } from '../schema/types.ts'
import type { ProviderTarget } from './targets.ts'

/**
 * What one provider accepts in a parameter schema, as data the converter reads. Provider quirks
 * live in `dialects/*`; the converter only asks these questions.
 */
export interface Dialect {
  readonly target: ProviderTarget
  /** For messages: "OpenAI strict mode", "Gemini parameters", ... */
  readonly label: string
  readonly strict: boolean
  /**
   * Pass-through dialects take any JSON Schema: the converter only makes the root an object,
   * normalises draft spellings to 2020-12, rewrites `$ref`s and renames refused property names.
   */
  readonly passThrough: boolean
  /** `openapi`: Gemini's `Schema` message (single upper-case `type`, `nullable`, no `$ref`). */
  readonly flavor: 'json-schema' | 'openapi'
  readonly refs: 'keep' | 'inline'
  /** `cut` expands a recursive `$ref` `recursionDepth` times on a path, then stops. */
  readonly recursion: 'allow' | 'cut' | 'forbid'
  readonly recursionDepth: number
  /** Constraint and annotation keywords carried as they are; the rest become description text. */
  readonly keywords: ReadonlySet<string>
  readonly formatAllowed: (format: string, type: string) => boolean
  /** Whether an enum value can be sent as it is (else it is sent as a string and mapped back). */
  readonly enumValueAllowed: (value: unknown) => boolean
  /** Every enum value must be a string (Gemini `parameters`). */
  readonly stringEnums: boolean
  readonly constAllowed: boolean
  /** A nullable enum lists `null` among its values (OpenAI strict requires it). */
  readonly nullInEnum: boolean
  /** `type: ["string", "number"]` is accepted; otherwise several types become `anyOf`. */
  readonly typeArrays: boolean
  /** Every object must say `additionalProperties: false`. */
  readonly closedObjects: boolean
  /** Every property must be required; optional ones become required and nullable. */
  readonly allRequired: boolean
  /** Values of no fixed shape (`{}`, free-form objects, maps) can be declared as they are. */
  readonly openValues: boolean
  /** `prefixItems` tuples are accepted. */
  readonly tuples: boolean
  /** Property names the provider accepts; others are renamed and mapped back. */
  readonly propertyName: RegExp | undefined
  /** A `$ref` may have sibling keywords (other than `$`-prefixed ones). */
  readonly refSiblings: boolean
  /** A root `anyOf`/`oneOf` is refused: such a root is wrapped as `{ input: ... }`. */
  readonly wrapRootUnion: boolean
  /** The largest `minItems` accepted (Anthropic strict: 1). */
  readonly minItemsCap: number | undefined
  readonly patternAllowed: (pattern: string) => boolean
  /** The first strict-mode limit the converted schema exceeds, if any; the tool then goes non-strict. */
  readonly strictLimitExceeded: ((schema: JsonSchema) => string | undefined) | undefined
}

const anything = () => true

/** The defaults of a pass-through dialect; each provider overrides what it must. */
export const PASS_THROUGH: Omit<Dialect, 'target' | 'label'> = {
  strict: false,
  passThrough: true,
  flavor: 'json-schema',
  refs: 'keep',
  recursion: 'allow',
  recursionDepth: Number.POSITIVE_INFINITY,
  keywords: new Set(),
  formatAllowed: anything,
  enumValueAllowed: anything,
  stringEnums: false,
  constAllowed: true,
  nullInEnum: true,
  typeArrays: true,
  closedObjects: false,
  allRequired: false,
  openValues: true,
  tuples: true,
  propertyName: undefined,
  refSiblings: true,
  wrapRootUnion: false,
  minItemsCap: undefined,
  patternAllowed: anything,
  strictLimitExceeded: undefined,
}

export function isPrimitive(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
}
