import { describe, expect, it } from 'vitest'
import { jsonString } from '../../src/util/jsonString.ts'

// An event's JSON is written out of strings quoted by hand (events/runEvents.ts): each must be the
// very text `JSON.stringify` makes of it, whatever it holds.
describe('jsonString', () => {
  it.each([
    '',
    'msg_as45WoSw24qt4OW7W6yrSg',
    'call_r76IjUD0-XgZeyiGermxfw',
    'get_weather',
    'say "hi"',
    'back\\slash',
    'line\nbreak\ttab\r',
    '\u0000\u001f\u007f',
    'Grüße 東京 🌍',
    '\u2028\u2029',
    '\ud800 lone \udfff',
    'pair \ud83c\udf26 then lone \ud83c',
    '</script>',
  ])('writes %j as JSON.stringify does', (text) => {
    expect(jsonString(text)).toBe(JSON.stringify(text))
  })
})
