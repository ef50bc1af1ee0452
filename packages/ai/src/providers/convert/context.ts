import type { Dialect } from '../dialect.ts'
import type { MutableSchema } from '../json.ts'
import type { Plan, PlanHolder } from '../plan.ts'
import type { RefResolver } from '../refs.ts'
import type { WarningLog } from '../warnings.ts'

/** What a conversion of one node yields. */
export interface Converted {
  readonly schema: MutableSchema
  readonly plan: Plan
  /** The original node accepts `null`, so a `null` from the model is a real value, not "absent". */
  readonly admitsNull: boolean
  /**
   * `cut`: a recursive `$ref` stopped here; `never`: no value is valid. `schema` is still usable,
   * but containers leave such parts out where they can (an optional property, a union branch).
   */
  readonly absent?: 'cut' | 'never'
}

/** What the parent asks of a node. */
export interface Want {
  /** The output must accept `null`: an optional property made required for strict mode. */
  readonly nullable?: boolean
}

export interface OptionalProperty {
  readonly at: string
  /** Its schema already counts as a union (anyOf or a type array). */
  readonly union: boolean
  readonly nullable: boolean
}

export interface DefEntry {
  readonly name: string
  readonly holder: PlanHolder
  converting: boolean
  admitsNull: boolean
}

export interface ConvertContext {
  readonly dialect: Dialect
  readonly refs: RefResolver
  readonly warnings: WarningLog
  /** Converted `$defs`, by the pointer of their original; only for dialects that keep `$ref`. */
  readonly defs: DefTable
  /** Pointers of the `$ref` targets being expanded inline, outermost first. */
  readonly expanding: string[]
  /** Optional properties (by pointer) to make required-and-nullable anyway (Anthropic's optional budget). */
  readonly forceRequired: ReadonlySet<string>
  /** Optional properties as they were left, for the budget. */
  readonly optionals: OptionalProperty[]
  /** How deep in nested `convertNode` calls; a guard against recursions nothing else stops. */
  depth: number
  mergeDepth: number
}

/** The `$defs` of the output: one entry per referenced target, named after it. */
export class DefTable {
  readonly #byPointer = new Map<string, DefEntry>()
  readonly #names = new Set<string>()

  get(pointer: string): DefEntry | undefined {
    return this.#byPointer.get(pointer)
  }

  create(pointer: string): DefEntry {
    const entry: DefEntry = { name: this.#nameFor(pointer), holder: { plan: { kind: 'same' }, schema: {} }, converting: true, admitsNull: false }
    this.#byPointer.set(pointer, entry)
    this.#names.add(entry.name)
    return entry
  }

  toJson(): MutableSchema | undefined {
    if (this.#byPointer.size === 0) return undefined
    const defs: MutableSchema = {}
    for (const entry of this.#byPointer.values()) defs[entry.name] = entry.holder.schema
    return defs
  }

  #nameFor(pointer: string): string {
    const last = pointer.split('/').pop() ?? ''
    const base = (pointer === '' ? 'root' : last.replace(/~1/g, '/').replace(/~0/g, '~')).replace(/[^A-Za-z0-9_.-]+/g, '_') || 'def'
    let name = base
    for (let i = 2; this.#names.has(name); i++) name = `${base}_${i}`
    return name
  }
}
