/** Where the TanStack AI page (frontends/tanstack/) is served during the e2e run. */
export const TANSTACK_PAGE_PORT = Number(process.env.E2E_TANSTACK_PORT ?? 4352)
