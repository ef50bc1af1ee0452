/** Where the CopilotKit page (frontends/copilotkit/) is served during the e2e run. */
export const COPILOTKIT_PAGE_PORT = Number(process.env.E2E_COPILOTKIT_PORT ?? 4351)
