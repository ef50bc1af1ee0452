/** A `fetch` given in place of the global one: to add headers, go through a proxy, or call a handler in-process. */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>
