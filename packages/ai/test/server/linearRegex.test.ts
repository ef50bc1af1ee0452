import { describe, expect, it } from 'vitest'
import { linearRegex, UnboundedPatternError } from '../../src/server/dialects/agui/linearRegex.ts'

// The linear-time engine that runs client patterns answers as the platform's engine does (under
// the `u` flag, as JSON Schema's `pattern` is run), on every pattern and input below.

const cases: [string, string[]][] = [
  ['^(a+)+$', ['aaaa', 'aaaa!', '', 'b']],
  ['^[a-z]{1,40}$', ['abc', '', 'a'.repeat(41), 'a'.repeat(40), 'aB']],
  ['(\\d+)\\d+', ['1', '12', 'x12y', 'ab']],
  ['^a*a*a*$', ['aaa', 'aab', '']],
  ['\\bfoo\\b', ['a foo b', 'afoo', 'foo', 'foo_']],
  ['\\Boo', ['foo', 'oo']],
  ['^(?<year>\\d{4})-(?:\\d{2})$', ['2020-12', '2020-1']],
  ['colou?r', ['my color', 'colour', 'colr']],
  ['^[^\\p{L}]+$', ['123', '12a', 'é']],
  ['^\\p{Lu}\\P{Lu}*$', ['Abc', 'ABc']],
  ['^\\u{1F600}.$', ['😀x', '😀😀', 'x']],
  ['^\\uD83D\\uDE00$', ['😀', 'x']],
  ['^\\x41\\u0042\\cJ$', ['AB\n', 'AB']],
  ['^(|a)*b$', ['aab', 'b', 'aac']],
  ['a|b|c', ['zzc', 'zz']],
  ['^.$', ['😀', '\n', 'x']],
  ['[]', ['a', '']],
  ['[^]', ['a', '']],
  ['^$', ['', 'a']],
  ['x{2,}y', ['xxy', 'xy']],
  ['^x{0,2}?y$', ['y', 'xxy', 'xxxy']],
  ['^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$', ['a.b@c.de', 'a@b', 'a b@c.de']],
  ['^\\s*\\S+\\s*$', ['  x  ', ' x y ']],
  ['^[\\]\\-\\\\]+$', [']-\\', 'a']],
  ['\\/\\*', ['a/*b', 'a*/']],
]

describe('linearRegex', () => {
  it.each(cases)('answers %s as the platform does', (pattern, inputs) => {
    const linear = linearRegex(pattern)
    const platform = new RegExp(pattern, 'u')
    for (const input of inputs) expect([input, linear.test(input)]).toEqual([input, platform.test(input)])
  })

  it('refuses what it cannot run in linear time', () => {
    expect(() => linearRegex('^(a)\\1$')).toThrow(UnboundedPatternError)
    expect(() => linearRegex('(?<=a)b')).toThrow(/lookaround/)
    expect(() => linearRegex('\\k<x>(?<x>a)')).toThrow(/backreference/)
    expect(() => linearRegex('(a{100}){100}')).toThrow(/more than 2000 states/)
    expect(() => linearRegex('(a')).toThrow(SyntaxError)
  })
})
