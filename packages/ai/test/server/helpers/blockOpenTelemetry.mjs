// `node --import` this file: any import of `@opentelemetry/*` then fails as if the package were
// not installed, so a script that runs shows nothing of OpenTelemetry was loaded.
import { register } from 'node:module'

const hooks = `
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) {
    throw Object.assign(new Error('Cannot find package ' + specifier + ' (blocked)'), { code: 'ERR_MODULE_NOT_FOUND' })
  }
  return next(specifier, context)
}`
register(`data:text/javascript,${encodeURIComponent(hooks)}`)
