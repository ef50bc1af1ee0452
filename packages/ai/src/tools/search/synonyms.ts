import { InvalidOptionError } from '../../errors.ts'
import { stem } from './stem.ts'
import { wordsOf } from './tokenize.ts'

/**
 * Words and phrases a request may use for what tool catalogs call otherwise: each key (a word or
 * a phrase, matched after stemming, so "PRs" and "pr" are one key) adds the words of its
 * alternatives to the request, weighted below the words the user typed. One-directional: add
 * the reverse entry where the reverse holds too.
 */
export type ToolSynonyms = Readonly<Record<string, readonly string[]>>

/**
 * The vocabulary of developer and workplace tools, as users say it and as tool catalogs write it.
 * Kept as data: extend it with `toolSearch({ synonyms })`.
 */
export const TOOL_SYNONYMS: ToolSynonyms = {
  // Code hosting
  pr: ['pull request'],
  prs: ['pull requests'],
  'pull request': ['merge request'],
  'merge request': ['pull request'],
  mr: ['merge request', 'pull request'],
  repo: ['repository'],
  repository: ['repo'],
  'who changed': ['blame'],
  'who wrote': ['blame'],
  'who touched': ['blame'],
  'last changed': ['blame'],
  'last modified': ['blame', 'info'],
  ci: ['workflow', 'pipeline', 'actions', 'job'],
  'ci run': ['workflow run'],
  build: ['workflow', 'pipeline', 'job'],
  pipeline: ['workflow', 'actions'],
  workflow: ['actions', 'pipeline'],
  rerun: ['re run', 'retry'],
  're run': ['rerun', 'retry'],
  retry: ['rerun'],
  'kick off': ['trigger', 'run'],
  trigger: ['run', 'dispatch'],
  sha: ['commit'],
  diff: ['changes', 'patch'],
  changes: ['diff'],
  'changed files': ['diff', 'files'],
  approve: ['review'],
  lgtm: ['approve', 'review'],
  fork: ['copy'],
  release: ['tag', 'version'],
  version: ['release', 'tag'],
  vulnerability: ['security', 'alert', 'advisory'],
  vulnerabilities: ['security', 'alerts', 'advisories'],
  cve: ['vulnerability', 'advisory', 'security'],
  'leaked secret': ['secret scanning', 'alert'],
  'leaked token': ['secret scanning', 'alert'],
  dependency: ['dependabot', 'package'],
  dependencies: ['dependabot', 'packages'],
  snippet: ['gist'],
  gist: ['snippet'],
  kanban: ['project', 'board'],
  board: ['project'],
  org: ['organization'],
  orgs: ['organizations'],
  grep: ['search', 'code'],
  unstage: ['reset'],
  switch: ['checkout'],
  squash: ['merge'],
  // Issue trackers
  ticket: ['issue'],
  tickets: ['issues'],
  bug: ['issue'],
  bugs: ['issues'],
  subtask: ['sub issue', 'child'],
  'sub task': ['sub issue', 'child'],
  'sub issue': ['subtask', 'child'],
  close: ['state', 'closed', 'transition', 'resolve'],
  reopen: ['state', 'open', 'transition'],
  resolve: ['close', 'resolved', 'state'],
  assign: ['assignee'],
  assignee: ['assign'],
  label: ['tag'],
  tag: ['label'],
  epic: ['parent'],
  duplicate: ['duplicates'],
  // People and messages
  user: ['member', 'profile', 'account'],
  users: ['members', 'people'],
  people: ['users', 'members'],
  person: ['user', 'member'],
  teammate: ['user', 'member'],
  me: ['authenticated', 'me'],
  my: ['authenticated', 'me'],
  'who am i': ['me', 'authenticated user', 'profile'],
  'logged in': ['authenticated', 'me'],
  'signed in': ['authenticated', 'me'],
  dm: ['direct message'],
  ping: ['message', 'mention'],
  mention: ['notification'],
  notifications: ['inbox'],
  inbox: ['notifications', 'messages'],
  mail: ['email'],
  email: ['mail', 'message'],
  reply: ['respond', 'answer', 'thread'],
  answer: ['reply', 'respond'],
  // Calendar
  meeting: ['event', 'calendar'],
  standup: ['meeting', 'event'],
  meetings: ['events', 'calendar'],
  appointment: ['event', 'calendar'],
  schedule: ['calendar', 'event'],
  reschedule: ['update event', 'move'],
  invite: ['invitation', 'attendee'],
  availability: ['free', 'busy'],
  // Data
  db: ['database'],
  sql: ['query', 'database'],
  rows: ['records', 'query'],
  spreadsheet: ['sheet'],
  cell: ['range', 'sheet'],
  // Infrastructure
  k8s: ['kubernetes'],
  kubectl: ['kubernetes'],
  cluster: ['kubernetes'],
  vm: ['instance', 'server'],
  server: ['instance'],
  machine: ['instance'],
  deploy: ['deployment', 'rollout', 'release', 'apply'],
  rollback: ['undo', 'revert', 'rollout'],
  'roll back': ['undo', 'revert', 'rollout'],
  restart: ['rollout restart'],
  container: ['docker'],
  storage: ['bucket'],
  bucket: ['s3', 'storage'],
  terminal: ['command', 'shell'],
  shell: ['command'],
  cli: ['command'],
  error: ['exception', 'issue'],
  errors: ['exceptions', 'issues'],
  crash: ['error', 'exception'],
  crashes: ['errors', 'exceptions'],
  exception: ['error'],
  latency: ['duration', 'performance', 'slow'],
  slow: ['performance', 'duration', 'explain'],
  oncall: ['on call'],
  mrs: ['merge requests', 'pull requests'],
  outage: ['incident'],
  incident: ['outage'],
  // Payments
  charge: ['payment'],
  charges: ['payments'],
  client: ['customer'],
  bill: ['invoice'],
  plan: ['price', 'subscription'],
  discount: ['coupon'],
  chargeback: ['dispute'],
  chargebacks: ['disputes'],
  // Web and notes
  google: ['search web'],
  website: ['site', 'page', 'url'],
  webpage: ['page', 'url'],
  link: ['url'],
  article: ['page', 'url'],
  doc: ['document', 'page'],
  docs: ['documents', 'pages'],
  note: ['page', 'notes'],
  wiki: ['page'],
  remember: ['memory', 'observation', 'entity'],
  forget: ['delete', 'memory'],
  // Shell vocabulary
  cat: ['read', 'file', 'contents'],
  ls: ['list', 'directory'],
  rm: ['delete', 'remove'],
  mv: ['move', 'rename'],
  cp: ['copy'],
  mkdir: ['create directory'],
  tail: ['last', 'lines', 'logs'],
  head: ['first', 'lines'],
  execute: ['run', 'command'],
  exec: ['run', 'execute', 'command'],
  run: ['execute'],
  // Web and browser
  http: ['url', 'page', 'web'],
  https: ['url', 'page', 'web'],
  url: ['page', 'link'],
  online: ['web', 'search'],
  internet: ['web', 'search'],
  'go to': ['navigate', 'open'],
  visit: ['navigate', 'open'],
  button: ['click'],
  press: ['click', 'key'],
  tap: ['click'],
  grab: ['get', 'fetch', 'download'],
  contents: ['read', 'content'],
  // Time and scheduling
  call: ['meeting', 'event', 'video call'],
  'set up': ['create'],
  'push back': ['reschedule', 'update', 'move'],
  postpone: ['reschedule', 'update', 'move'],
  delay: ['reschedule', 'update'],
  minutes: ['time', 'duration'],
  hours: ['time', 'duration'],
  record: ['log', 'add'],
  'on call': ['oncall'],
  // Mail and messages
  unread: ['search', 'label'],
  star: ['label', 'starred'],
  said: ['messages', 'history', 'conversation'],
  say: ['read', 'get', 'message'],
  recent: ['latest', 'history', 'list'],
  recently: ['latest', 'history', 'list'],
  latest: ['recent', 'last'],
  // Verbs of change
  overwrite: ['write', 'replace'],
  replace: ['edit', 'update', 'write'],
  locate: ['find', 'search'],
  undo: ['reset', 'revert', 'rollback', 'unstage'],
  revert: ['undo', 'reset', 'rollback'],
  reassign: ['assign', 'assignee'],
  drop: ['delete', 'remove', 'alter'],
  count: ['aggregate', 'group', 'query'],
  // Intent phrasings
  tell: ['message', 'send', 'post'],
  'let them know': ['message', 'reply', 'respond', 'notify'],
  'let know': ['message', 'notify'],
  notify: ['message', 'send'],
  report: ['create issue', 'bug'],
  'how many': ['count', 'aggregate', 'query'],
  'write back': ['reply', 'message'],
  respond: ['reply', 'answer'],
  decline: ['respond', 'invite'],
  accept: ['respond', 'invite'],
  "can't make it": ['decline', 'respond'],
  capacity: ['scale', 'replicas'],
  'scale up': ['scale', 'replicas'],
  'previous version': ['rollback', 'undo', 'revert'],
  'old version': ['rollback', 'undo', 'revert'],
  'go back': ['back', 'undo', 'previous'],
  'turn off': ['stop', 'shut down', 'disable'],
  'turn on': ['start', 'enable'],
  'shut down': ['stop'],
  'spin up': ['start', 'create'],
  idle: ['usage', 'cpu', 'metric'],
  money: ['cost', 'spend', 'balance', 'payment'],
  spend: ['cost'],
  cost: ['spend'],
  'money back': ['refund'],
  'stop paying': ['cancel subscription'],
  unsubscribe: ['cancel subscription'],
  monthly: ['subscription', 'recurring', 'month'],
  headlines: ['news'],
  'keep in mind': ['remember', 'memory', 'observation'],
  prefer: ['preference', 'memory', 'observation'],
  'still up': ['running', 'status'],
  running: ['status', 'list'],
  test: ['ci', 'pipeline', 'workflow', 'check'],
  tests: ['ci', 'pipeline', 'workflow', 'check'],
  pass: ['status', 'success'],
  fail: ['status', 'failed', 'job'],
  failing: ['status', 'failed', 'job'],
  access: ['share', 'permission'],
  permission: ['share', 'access'],
  rain: ['weather', 'forecast'],
  snow: ['weather', 'forecast'],
  umbrella: ['weather', 'forecast', 'rain'],
  temperature: ['weather', 'forecast'],
  pip: ['command', 'run'],
  npm: ['command', 'run'],
  yarn: ['command', 'run'],
  python: ['command', 'run'],
  bash: ['command', 'run', 'shell'],
  // Files and verbs
  folder: ['directory'],
  dir: ['directory'],
  directory: ['folder'],
  rename: ['move', 'title', 'update'],
  delete: ['remove'],
  remove: ['delete'],
  erase: ['delete'],
  make: ['create'],
  new: ['create'],
  add: ['create'],
  open: ['create'],
  start: ['create', 'run'],
  write: ['create', 'update'],
  save: ['write', 'create'],
  edit: ['update', 'change'],
  change: ['update', 'edit'],
  modify: ['update', 'edit'],
  set: ['update'],
  find: ['search', 'list'],
  'look up': ['search', 'get'],
  lookup: ['search', 'get'],
  look: ['search', 'get'],
  list: ['search'],
  see: ['get', 'list', 'read'],
  show: ['get', 'list', 'read'],
  details: ['get', 'read'],
  view: ['get', 'read'],
  read: ['get'],
  fetch: ['get', 'read'],
  check: ['get', 'status'],
  download: ['get', 'fetch'],
  upload: ['push', 'put', 'create'],
  push: ['upload', 'commit'],
  cancel: ['stop', 'delete'],
  stop: ['cancel'],
  kill: ['stop', 'cancel'],
  post: ['send', 'create'],
  send: ['post', 'create'],
  picture: ['image', 'screenshot'],
  screenshot: ['capture', 'image'],
  popup: ['dialog'],
  dropdown: ['select option'],
}

/** A compiled table: phrases as stemmed word sequences, longest first, to terms of the alternatives. */
export interface SynonymTable {
  /** Stemmed first word → entries starting with it, longest phrase first. */
  readonly byFirstWord: ReadonlyMap<string, readonly { readonly words: readonly string[]; readonly terms: readonly string[] }[]>
}

export function compileSynonyms(...tables: readonly ToolSynonyms[]): SynonymTable {
  const merged = new Map<string, Set<string>>()
  for (const table of tables) {
    for (const [phrase, alternatives] of Object.entries(table)) {
      const key = phraseWords(phrase).join(' ')
      if (key === '') continue
      const terms = merged.get(key) ?? new Set<string>()
      for (const alternative of alternatives) for (const term of phraseWords(alternative)) terms.add(term)
      merged.set(key, terms)
    }
  }
  const byFirstWord = new Map<string, { words: string[]; terms: string[] }[]>()
  for (const [key, terms] of merged) {
    const words = key.split(' ')
    const list = byFirstWord.get(words[0] as string) ?? []
    list.push({ words, terms: [...terms] })
    byFirstWord.set(words[0] as string, list)
  }
  for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length)
  return { byFirstWord }
}

const compiled = new WeakMap<ToolSynonyms, WeakMap<ToolSynonyms, SynonymTable>>()
const NONE: ToolSynonyms = Object.freeze({})

/** `compileSynonyms(base, extra)`, compiled once per pair of tables. */
export function compiledSynonyms(base: ToolSynonyms, extra: ToolSynonyms = NONE): SynonymTable {
  let byExtra = compiled.get(base)
  if (!byExtra) compiled.set(base, (byExtra = new WeakMap()))
  let table = byExtra.get(extra)
  if (!table) byExtra.set(extra, (table = compileSynonyms(base, extra)))
  return table
}

/** Words of a phrase as the matcher sees them: stemmed, stop words kept ("who changed"). */
export function phraseWords(text: string): string[] {
  return wordsOf(text).map(stem)
}

/** The terms the table adds for `words` (the request's stemmed words, stop words kept). */
export function expandSynonyms(table: SynonymTable, words: readonly string[]): string[] {
  const added: string[] = []
  for (let i = 0; i < words.length; i++) {
    const candidates = table.byFirstWord.get(words[i] as string)
    if (!candidates) continue
    for (const entry of candidates) {
      if (entry.words.every((word, offset) => words[i + offset] === word)) {
        added.push(...entry.terms)
        break
      }
    }
  }
  return added
}

/** Throws a coded error naming the entry when `synonyms` is not phrase → list of strings. */
export function assertSynonyms(where: string, synonyms: unknown): asserts synonyms is ToolSynonyms {
  if (typeof synonyms !== 'object' || synonyms === null || Array.isArray(synonyms)) throw new InvalidOptionError(where, 'synonyms', 'must be an object of phrase → alternatives')
  for (const [phrase, alternatives] of Object.entries(synonyms)) {
    if (!Array.isArray(alternatives) || !alternatives.every((alternative) => typeof alternative === 'string')) {
      throw new InvalidOptionError(where, `synonyms["${phrase}"]`, 'must be an array of strings')
    }
  }
}
