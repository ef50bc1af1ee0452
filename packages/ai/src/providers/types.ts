import type { JsonSchema } from '../schema/types.ts'
import type { McpToolAnnotations, ProviderTarget } from './targets.ts'
import type { ProviderWarning } from './warnings.ts'

/** Chat Completions `tools[]` entry. */
export interface OpenAIChatTool {
  readonly type: 'function'
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: JsonSchema
    readonly strict: boolean
  }
}

/** Responses API `tools[]` entry (flat). */
export interface OpenAIResponsesTool {
  readonly type: 'function'
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
  readonly strict: boolean
}

/** Messages API `tools[]` entry; `strict` only when strict tool use holds. */
export interface AnthropicTool {
  readonly name: string
  readonly description: string
  readonly input_schema: JsonSchema & { readonly type: 'object' }
  readonly strict?: true
}

/**
 * Gemini's `Type`, upper-case as the REST API spells it. Declared as an enum named `Type` with
 * `@google/genai`'s members because TypeScript relates enums by name and members: an envelope is
 * then assignable to the SDK's `FunctionDeclaration` without this package importing the SDK. Type
 * only: compare against the strings (`schema.type === 'STRING'`), there is no runtime object.
 */
declare enum Type {
  STRING = 'STRING',
  NUMBER = 'NUMBER',
  INTEGER = 'INTEGER',
  BOOLEAN = 'BOOLEAN',
  ARRAY = 'ARRAY',
  OBJECT = 'OBJECT',
  NULL = 'NULL',
}
export type GeminiType = Type

/**
 * Gemini's `Schema` message: the OpenAPI 3.0 subset `parameters` takes (22 fields). Counts are
 * int64 in the API, so strings in its JSON (`"maxItems": "5"`), as the official SDK types them.
 * Mutable, as the SDK's types are; the values `toProviderTool` returns are frozen all the same.
 */
export interface GeminiSchema {
  type?: GeminiType
  format?: string
  title?: string
  description?: string
  nullable?: boolean
  enum?: string[]
  maxItems?: string
  minItems?: string
  properties?: { [name: string]: GeminiSchema }
  required?: string[]
  minProperties?: string
  maxProperties?: string
  minLength?: string
  maxLength?: string
  pattern?: string
  example?: unknown
  anyOf?: GeminiSchema[]
  propertyOrdering?: string[]
  default?: unknown
  items?: GeminiSchema
  minimum?: number
  maximum?: number
}

/** A `functionDeclarations[]` entry with `parameters`; left out for a tool without parameters. */
export interface GeminiFunctionDeclaration {
  readonly name: string
  readonly description: string
  readonly parameters?: GeminiSchema
}

/** A `functionDeclarations[]` entry with `parametersJsonSchema`; left out for a tool without parameters. */
export interface GeminiJsonSchemaFunctionDeclaration {
  readonly name: string
  readonly description: string
  readonly parametersJsonSchema?: JsonSchema
}

/** An MCP `tools/list` entry. */
export interface McpTool {
  readonly name: string
  readonly title?: string
  readonly description: string
  readonly inputSchema: JsonSchema & { readonly type: 'object' }
  /** MCP requires an object root here too; an output schema that cannot have one is left out. */
  readonly outputSchema?: JsonSchema & { readonly type: 'object' }
  readonly annotations?: McpToolAnnotations
}

/** The envelope each target's API takes. */
export interface ProviderToolMap {
  'openai-chat': OpenAIChatTool
  'openai-responses': OpenAIResponsesTool
  anthropic: AnthropicTool
  gemini: GeminiFunctionDeclaration
  'gemini-json-schema': GeminiJsonSchemaFunctionDeclaration
  mcp: McpTool
}

/** The parameter schema each target takes. */
export interface ProviderSchemaMap {
  'openai-chat': JsonSchema
  'openai-responses': JsonSchema
  anthropic: JsonSchema
  gemini: GeminiSchema
  'gemini-json-schema': JsonSchema
  mcp: JsonSchema
}

export interface ProviderToolResult<T extends ProviderTarget = ProviderTarget> {
  readonly tool: ProviderToolMap[T]
  /** Paths point into the tool: `/name`, `/inputSchema/...`, `/outputSchema/...`. */
  readonly warnings: readonly ProviderWarning[]
  /** The provider's schema enforces less than the tool's own: a constraint was dropped or became text (see `ProviderWarningCode`). */
  readonly lossy: boolean
}

export interface ProviderSchemaResult<T extends ProviderTarget = ProviderTarget> {
  readonly schema: ProviderSchemaMap[T]
  /** Paths point into the given schema. */
  readonly warnings: readonly ProviderWarning[]
  /** The provider's schema enforces less than the given one (see `ProviderToolResult.lossy`). */
  readonly lossy: boolean
  /** Strict rules hold for `schema`: strict was asked for and no limit forced it off. */
  readonly strict: boolean
}

/** A model's call mapped back to the tool's own name and argument shape. */
export interface ProviderCall<TName extends string = string> {
  readonly toolName: TName
  readonly args: unknown
}
