// The demo's stand-in for sign-in: a cookie the server's `identify` reads. Never do this in an app.

export const PEOPLE = [
  { id: 'alice', label: 'Alice (requester)' },
  { id: 'bob', label: 'Bob (finance)' },
] as const

export function currentUser(): string {
  return /(?:^|;\s*)demo_user=(\w+)/.exec(document.cookie)?.[1] ?? 'alice'
}

export function switchUser(id: string): void {
  document.cookie = `demo_user=${id}; path=/; SameSite=Lax`
  location.reload()
}
