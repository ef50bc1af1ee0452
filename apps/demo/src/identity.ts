// The demo's stand-in for sign-in: a cookie the server's `identify` reads. Never do this in an app.

/** The demo's people, as its server's `identify` names them (server/main.ts). */
export const PEOPLE = [
  { id: 'alice', label: 'Alice (requester)', roles: ['staff'] },
  { id: 'bob', label: 'Bob (finance)', roles: ['staff', 'finance'] },
] as const

export function currentUser(): string {
  return /(?:^|;\s*)demo_user=(\w+)/.exec(document.cookie)?.[1] ?? 'alice'
}

/** Who this page is signed in as, for the chat's words ("waits for you"); the server decides who may answer. */
export function currentPerson(): { readonly id: string; readonly roles: readonly string[] } {
  const person = PEOPLE.find((candidate) => candidate.id === currentUser()) ?? PEOPLE[0]
  return { id: person.id, roles: person.roles }
}

export function switchUser(id: string): void {
  document.cookie = `demo_user=${id}; path=/; SameSite=Lax`
  location.reload()
}
