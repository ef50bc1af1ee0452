/** Cuts user-supplied text the model will read, so one answer cannot flood the context. */
export function capText(text: string, maxLength: number): string {
  const chars = [...text]
  return chars.length <= maxLength ? text : `${chars.slice(0, maxLength).join('')}…`
}
