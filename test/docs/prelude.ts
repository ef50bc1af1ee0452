// The app around the README's excerpts: its tools and helpers. An excerpt imports from here only
// the names its `// Defined elsewhere:` line lists, which says where each comes from
// (codeBlocks.test.ts). The guides in docs/ and the package READMEs never use this file.
import * as http from 'node:http'
import type { ComponentType, ReactNode } from 'react'
import * as v from 'valibot'
import { toolDefinition, toolSearch, type AnyTool } from '@toolgate/ai'
import { type ChatMiddleware, type ChatModel, createChatHandler, memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore } from '@toolgate/ai/server/redis'
import type { ToolCallPart } from '@toolgate/ai/client'
import { openai } from '@ai-sdk/openai'

export { http, v, toolDefinition, toolSearch, createChatHandler, redisStore, openai, type ChatMiddleware }

export const getWeather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ tempC: v.number() }),
})
export const weather = getWeather.server(async () => ({ tempC: 18 }))
export const sendEmail = toolDefinition({
  name: 'send_email',
  description: 'Sends an email',
  inputSchema: v.object({ to: v.string(), subject: v.string(), body: v.string() }),
  needsApproval: true,
})
export const send = async (input: { to: string; subject: string; body: string }) => ({ sent: true, to: input.to })
export const setTheme = toolDefinition({
  name: 'set_theme',
  description: 'Switches the page theme',
  inputSchema: v.object({ theme: v.picklist(['light', 'dark']) }),
  outputSchema: v.object({ theme: v.picklist(['light', 'dark']) }),
})
export const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  needsApproval: true,
}).server(async ({ to, amount }) => ({ receipt: `${to}-${amount}` }))
export const chartDef = toolDefinition({
  name: 'chart',
  description: 'Charts numbers',
  inputSchema: v.object({ numbers: v.array(v.number()) }),
  outputSchema: v.object({ points: v.number() }),
})
export const tools = [getWeather, sendEmail, setTheme] as const
export const clientTools = [setTheme] as const
export const githubTools: readonly AnyTool[] = [getWeather, sendEmail]
export const model: ChatModel = scriptedModel([])
export const endpoint = '/api/chat'
export const context = undefined
export const call = { name: 'get_weather', arguments: '{"city":"Oslo"}' }
export const modelArgs: unknown = { city: 'Oslo' }
export const log = { info: (_data: object, _message: string) => {} }
export declare function ownsThread(request: Request, threadId: string): boolean | Promise<boolean>
export declare function tenantOf(request: Request): { crmApiKey: string; locale?: string }
export declare function crm(apiKey: string, locale: string): { find(email: string): Promise<{ name: string }> }
export declare function askOnSlack(toolName: string, input: unknown, reason: string | undefined): Promise<boolean>
export declare function renderPng(numbers: readonly number[]): Promise<Uint8Array>
export const myStore = (_options: { threadTtlMs?: number }): ThreadStore => memoryStore()
export declare const WeatherCard: ComponentType<{ tempC: number }>
export declare const Spinner: ComponentType
export declare const GenericCard: ComponentType<{ readonly part: ToolCallPart<typeof tools> }>
export type { ReactNode }
export const redactSecrets: ChatMiddleware = { name: 'redact-secrets' }
export declare const redis: Parameters<typeof redisStore>[0]['client']
