import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolJsonSchema, type JsonSchema } from '@toolgate/ai'
import { ApprovalForm, type FormField } from '@toolgate/ai/client'
import { fieldProblem, formFields, pathName, valueAt } from '../../src/client/forms/formFields.ts'
import { loadCorpus } from '../providers/corpus.ts'

/** Every field, depth first. */
function flatten(fields: readonly FormField[]): FormField[] {
  return fields.flatMap((field) => [field, ...flatten(field.fields ?? [])])
}

/** The fields of a form on `value` under `schema`, as a view reads them. */
function fieldsOf(schema: JsonSchema, value: unknown): readonly FormField[] {
  return new ApprovalForm({ toolCallId: 'call_1', toolName: 'tool', input: value, approval: { inputSchema: schema } }).getSnapshot().fields
}

/** Each property a schema describes, as field names, down through objects the form lists. */
function propertyNames(schema: JsonSchema, prefix = ''): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  return Object.entries(properties).flatMap(([key, child]) => {
    const name = prefix ? `${prefix}.${key}` : key
    return [name, ...(child.type === 'object' && child.properties && !child.additionalProperties ? propertyNames(child, name) : [])]
  })
}

describe('a form’s fields over real tool schemas', () => {
  const corpus = loadCorpus()
  it('reads all 117 of GitHub’s MCP server tools without a crash, dropping no property', () => {
    expect(corpus).toHaveLength(117)
    let fields = 0
    const kinds = new Map<string, number>()
    for (const tool of corpus) {
      const schema = tool.inputSchema as JsonSchema
      const form = flatten(fieldsOf(schema, {}))
      fields += form.length
      for (const field of form) kinds.set(field.kind, (kinds.get(field.kind) ?? 0) + 1)
      const names = new Set(form.map((field) => field.name))
      for (const name of propertyNames(schema)) expect(names.has(name), `${tool.name}: ${name}`).toBe(true)
      // Every field has a label, and a required property is marked required.
      for (const field of form) expect(field.label).not.toBe('')
      for (const key of (schema.required ?? []) as string[]) expect(form.find((field) => field.name === key)?.required, `${tool.name}.${key}`).toBe(true)
    }
    expect(fields).toBeGreaterThan(500)
    // The corpus exercises text, numbers, booleans, enums and arrays; none needs the JSON fallback at the top level.
    for (const kind of ['text', 'number', 'boolean', 'enum', 'array']) expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(0)
  })
})

describe('a form’s fields', () => {
  const order = toolDefinition({
    name: 'place_order',
    description: 'Places an order',
    inputSchema: v.object({
      customer: v.object({ name: v.pipe(v.string(), v.title('Customer name'), v.minLength(2)), email: v.pipe(v.string(), v.email()) }),
      items: v.array(v.object({ sku: v.string(), quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)) })),
      tags: v.array(v.string()),
      shipBy: v.optional(v.pipe(v.string(), v.isoDate())),
      express: v.boolean(),
      note: v.nullable(v.string()),
      priority: v.picklist(['low', 'high']),
      extra: v.record(v.string(), v.number()),
    }),
  })
  const schema = toolJsonSchema(order) as JsonSchema
  const value = { customer: { name: 'Ada', email: 'ada@example.com' }, items: [{ sku: 'A1', quantity: 2 }], tags: ['x'], express: false, note: null, priority: 'low', extra: { a: 1 } }

  it('maps nested objects, arrays of objects and scalars, bounds, formats, nullable, enums and maps', () => {
    const fields = flatten(fieldsOf(schema, value))
    const byName = Object.fromEntries(fields.map((field) => [field.name, field]))
    expect(byName['customer.name']).toMatchObject({ kind: 'text', label: 'Customer name', minLength: 2, required: true })
    expect(byName['customer.email']).toMatchObject({ kind: 'text', format: 'email' })
    expect(byName['items']).toMatchObject({ kind: 'array' })
    expect(byName['items[0].quantity']).toMatchObject({ kind: 'integer', minimum: 1, maximum: 10 })
    expect(byName['tags[0]']).toMatchObject({ kind: 'text' })
    expect(byName['shipBy']).toMatchObject({ kind: 'text', format: 'date', required: false })
    expect(byName['express']).toMatchObject({ kind: 'boolean' })
    expect(byName['note']).toMatchObject({ kind: 'text', nullable: true })
    expect(byName['priority']).toMatchObject({ kind: 'enum', options: ['low', 'high'] })
    // A map cannot be listed as fields: it is edited as JSON, not dropped.
    expect(byName['extra']).toMatchObject({ kind: 'json' })
  })

  it('follows local $refs, and falls back to JSON for what it cannot show', () => {
    const withRefs: JsonSchema = {
      type: 'object',
      properties: { home: { $ref: '#/$defs/address' }, pair: { type: 'array', prefixItems: [{ type: 'string' }], items: false }, either: { oneOf: [{ type: 'string' }, { type: 'number' }] }, missing: { $ref: '#/$defs/nope' } },
      $defs: { address: { type: 'object', properties: { city: { type: 'string', description: 'City' } }, required: ['city'] } },
    }
    const byName = Object.fromEntries(flatten(fieldsOf(withRefs, {})).map((field) => [field.name, field]))
    expect(byName['home.city']).toMatchObject({ kind: 'text', description: 'City', required: true })
    expect(byName['pair']!.kind).toBe('json')
    expect(byName['either']!.kind).toBe('json')
    expect(byName['missing']!.kind).toBe('json')
    // Values the schema does not describe stay visible.
    expect(flatten(fieldsOf(withRefs, { surprise: 1 })).map((field) => field.name)).toContain('surprise')
  })
})

describe('ApprovalForm', () => {
  const transfer = toolDefinition({
    name: 'transfer',
    description: 'Sends money',
    inputSchema: v.object({ to: v.object({ name: v.pipe(v.string(), v.minLength(2)) }), amount: v.pipe(v.number(), v.maxValue(1000)), memo: v.optional(v.string()) }),
  })
  const approval = { toolCallId: 'call_1', toolName: 'transfer', input: { to: { name: 'Bob' }, amount: 50 }, approval: { inputSchema: toolJsonSchema(transfer) as JsonSchema } }

  it('starts at the model’s arguments, tracks edits per field, and hands back the edited arguments', () => {
    const form = new ApprovalForm(approval, transfer)
    expect(form.getSnapshot()).toMatchObject({ value: approval.input, edited: false })
    expect(form.editedArgs()).toBeUndefined()
    form.setValue(['to', 'name'], 'Carol')
    expect(form.isEdited(['to', 'name'])).toBe(true)
    expect(form.isEdited(['amount'])).toBe(false)
    expect(form.editedArgs()).toEqual({ to: { name: 'Carol' }, amount: 50 })
    form.setValue(['to', 'name'], 'Bob')
    expect(form.getSnapshot().edited).toBe(false)
  })

  it('keeps unparsable text as a draft with an error on its field, and validates with the tool’s own schema', async () => {
    const form = new ApprovalForm(approval, transfer)
    const amount = form.getSnapshot().fields.find((field) => field.name === 'amount')!
    form.setText(amount, '12abc')
    expect(form.getSnapshot()).toMatchObject({ drafts: { amount: '12abc' }, errors: { amount: 'Expected a number' } })
    expect(await form.validate()).toBe(false)
    form.setText(amount, '5000')
    expect(await form.validate()).toBe(false) // over the schema’s maximum
    expect(form.getSnapshot().errors.amount).toMatch(/1000/)
    form.setText(amount, '700')
    form.setValue(['to', 'name'], 'X')
    expect(await form.validate()).toBe(false)
    expect(form.getSnapshot().errors['to.name']).toMatch(/2/)
    form.setValue(['to', 'name'], 'Xavier')
    expect(await form.validate()).toBe(true)
    expect(form.editedArgs()).toEqual({ to: { name: 'Xavier' }, amount: 700 })
  })

  it('adds and removes array items from the item schema', () => {
    const listTool = toolDefinition({ name: 'tag', description: 'Tags', inputSchema: v.object({ tags: v.array(v.object({ label: v.string() })) }) })
    const form = new ApprovalForm({ toolCallId: 'c', toolName: 'tag', input: { tags: [{ label: 'a' }] }, approval: { inputSchema: toolJsonSchema(listTool) as JsonSchema } })
    const tags = form.getSnapshot().fields[0]!
    form.addItem(tags)
    expect(form.getSnapshot().value).toEqual({ tags: [{ label: 'a' }, {}] })
    expect(flatten(form.getSnapshot().fields).map((field) => field.name)).toContain('tags[1].label')
    form.removeItem(form.getSnapshot().fields[0]!, 0)
    expect(form.getSnapshot().value).toEqual({ tags: [{}] })
  })

  it('reads a value at a path and a field’s own problem from the edits so far', () => {
    const form = new ApprovalForm(approval, transfer)
    const name = flatten(form.getSnapshot().fields).find((field) => field.name === 'to.name')!
    expect(form.valueAt(['to', 'name'])).toBe('Bob')
    expect(form.valueAt([])).toEqual(approval.input)
    expect(form.valueAt(['to', 'nowhere', 0])).toBeUndefined()
    expect(form.problemOf(name)).toBeUndefined()
    form.setValue(['to', 'name'], undefined)
    expect(form.problemOf(name)).toBe('Required')
    form.setValue(['to', 'name'], 42)
    expect(form.problemOf(name)).toBe('Expected a text')
  })

  it('keeps the deprecated helpers working, with the form’s answers', () => {
    const form = new ApprovalForm(approval, transfer)
    const { fields, value } = form.getSnapshot()
    expect(formFields(approval.approval.inputSchema, approval.input)).toEqual(fields)
    for (const field of flatten(fields)) {
      expect(pathName(field.path)).toBe(field.name)
      expect(valueAt(value, field.path)).toEqual(form.valueAt(field.path))
      expect(fieldProblem(field, valueAt(value, field.path))).toBe(form.problemOf(field))
    }
  })
})
