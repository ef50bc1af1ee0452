import * as v from 'valibot'
import * as z from 'zod'
import { type } from 'arktype'

/** The same weather tool schemas in each schema library the conformance tests cover. */
export const weatherSchemas = {
  valibot: { input: v.object({ city: v.string() }), output: v.object({ tempC: v.number() }) },
  zod: { input: z.object({ city: z.string() }), output: z.object({ tempC: z.number() }) },
  arktype: { input: type({ city: 'string' }), output: type({ tempC: 'number' }) },
}

/** Closed objects: an unknown key is an error. */
export const strictSchemas = {
  valibot: v.strictObject({ city: v.string() }),
  zod: z.object({ city: z.string() }).strict(),
  arktype: type({ '+': 'reject', city: 'string' }),
}

export type Library = keyof typeof weatherSchemas
export const libraries = Object.keys(weatherSchemas) as Library[]
