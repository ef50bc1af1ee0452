const PARAM = 'thread'

/** The thread id in the address bar, so a reload continues the conversation. */
export function threadIdFromUrl(): string | undefined {
  return new URLSearchParams(location.search).get(PARAM) ?? undefined
}

export function putThreadIdInUrl(threadId: string | undefined): void {
  const url = new URL(location.href)
  if (threadId === undefined) url.searchParams.delete(PARAM)
  else url.searchParams.set(PARAM, threadId)
  if (url.href !== location.href) history.replaceState(null, '', url)
}
