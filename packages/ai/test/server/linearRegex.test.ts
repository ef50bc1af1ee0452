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
  // Overlapping adjacent quantifiers (issue 36): a backtracking engine tries every split of the input between them.
  ['(a|a)*b', ['aaab', 'aaa', 'b', '']],
  ['a*a*a*b', ['aaab', 'aaa', 'xb']],
  ['(\\d+)+x', ['12x', '123', 'x']],
  ['\\w*\\d*\\w*$', ['ab12cd', 'ab!', '']],
  ['^\\w*\\d*\\w*$', ['ab12cd', 'ab!']],
  // Counted repetitions of one character: one counting state, however large the count (refused before, past 2000 states).
  ['^[a-z]{1,5000}$', ['', 'a', 'a'.repeat(5000), 'a'.repeat(5001), `${'a'.repeat(4999)}B`]],
  ['^.{0,10000}$', ['', 'x'.repeat(10_000), 'x'.repeat(10_001), '😀'.repeat(10_000)]],
  ['\\d{3,}x', ['12x', '123x', 'a1234x', '1234']],
  ['(a{100}){100}', ['a'.repeat(9999), 'a'.repeat(10_000)]],
  ['^(?:a{2,3}b){2}$', ['aabaaab', 'ababab', 'aaaabaab']],
  ['a{9,10}b', [`${'a'.repeat(8)}b`, `${'a'.repeat(12)}b`, `${'a'.repeat(9)}b`]],
  ['^x{20}?y$', [`${'x'.repeat(20)}y`, 'xy']],
]

describe('linearRegex', () => {
  it.each(cases)('answers %s as the platform does', (pattern, inputs) => {
    const linear = linearRegex(pattern)
    const platform = new RegExp(pattern, 'u')
    for (const input of inputs) expect([input, linear.test(input)]).toEqual([input, platform.test(input)])
  })

  it.each([
    ['(a|a)*b', 'a', false],
    ['(a|a)*b', 'a', true, 'b'],
    ['a*a*a*b', 'a', false],
    ['(\\d+)+x', '1', false],
    ['(\\d+)+x', '1', true, 'x'],
    ['^\\w*\\d*\\w*$', 'a1', false, '!'],
    ['\\w*\\d*\\w*$', 'a1', true, '!'],
    ['^(a+)+$', 'a', false, '!'],
  ] as [string, string, boolean, string?][])('answers %s on 100,000 characters of %j (then %j) as the language says', (pattern, unit, expected, tail = '') => {
    // Hostile inputs a backtracking engine would not finish: the automaton's answer, by what the pattern means.
    expect(linearRegex(pattern).test(`${unit.repeat(100_000 / unit.length)}${tail}`)).toBe(expected)
  })

  it('refuses what it cannot run in linear time', () => {
    expect(() => linearRegex('^(a)\\1$')).toThrow(UnboundedPatternError)
    expect(() => linearRegex('(?<=a)b')).toThrow(/lookaround/)
    expect(() => linearRegex('\\k<x>(?<x>a)')).toThrow(/backreference/)
    expect(() => linearRegex('((ab){100}){100}')).toThrow(/more than 2000 states/)
    expect(() => linearRegex('(ab){2001}')).toThrow(/repeats something more than 2000 times/)
    expect(() => linearRegex('a{100001}')).toThrow(/repeats a character more than 100000 times/)
    expect(() => linearRegex('(a')).toThrow(SyntaxError)
  })
})
