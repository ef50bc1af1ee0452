/** Where the MCP App page (frontends/mcp-app/) is served during the e2e run. */
export const MCP_APP_PAGE_PORT = Number(process.env.E2E_MCP_APP_PORT ?? 4354)
