// Imported by server code (through tools/toolJsonSchema.ts, which every server entry uses), never
// by the browser client: it puts the real emitter and validator in the bundle, whatever export
// conditions the bundler resolved. See serverSchemaSupport.ts. It is the package's one module with a
// side effect (package.json `sideEffects`): without saying so, webpack (Next.js) skips it and the
// Edge runtime gets the browser stubs.
import { emitJsonSchema } from './emitJsonSchema.ts'
import { registerServerSchemaSupport } from './serverSchemaSupport.ts'
import { validateJsonSchema } from './validateJsonSchema.ts'

registerServerSchemaSupport({ emitJsonSchema, validateJsonSchema })

export { emitJsonSchema }
