/**
 * An unguessable id (128 random bits, base64url). Uses `crypto.getRandomValues`, which exists in
 * every browser context and in Node, unlike `crypto.randomUUID` (secure contexts only).
 */
export function randomId(prefix = ''): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return prefix + btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}
