// The server build of `#validate-plain-json-schema`: plain JSON Schema objects validate as they are.
export { validateJsonSchema as validatePlainJsonSchema } from './validateJsonSchema.ts'
export { jsonSchemaProblem as plainJsonSchemaProblem } from './checkJsonSchema.ts'
