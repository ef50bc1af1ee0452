/** Where the AI SDK page (frontends/ai-sdk/) is served during the e2e run. */
export const AI_SDK_PAGE_PORT = Number(process.env.E2E_AISDK_PORT ?? 4350)
