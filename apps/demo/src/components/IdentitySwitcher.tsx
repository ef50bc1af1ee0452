import { currentUser, PEOPLE, switchUser } from '../identity.ts'

/** "You are Alice (requester) / Bob (finance)": who the demo's server thinks you are. */
export function IdentitySwitcher() {
  const user = currentUser()
  return (
    <label className="identity">
      You are{' '}
      <select aria-label="You are" value={user} onChange={(event) => switchUser(event.target.value)}>
        {PEOPLE.map((person) => (
          <option key={person.id} value={person.id}>
            {person.label}
          </option>
        ))}
      </select>
    </label>
  )
}
