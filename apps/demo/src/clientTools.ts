import { userRequests } from '@toolgate/ai/client'
import { askUser, bookMeeting, chartTemperatures, copyToClipboard, deleteFiles, getBrowserInfo, getWeather, sendEmail, setTheme, think, transferMoney } from './tools.ts'
import { applyTheme } from './theme.ts'

// Client tools run here, in the browser, when the server asks. Their input was validated by the
// server and is validated again here; their output is validated here and again by the server.

const setThemeTool = setTheme.client(({ theme }) => {
  applyTheme(theme)
  return { theme }
})

const browserInfoTool = getBrowserInfo.client(() => ({
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  language: navigator.language,
}))

const copyTool = copyToClipboard.client(async ({ text }) => {
  try {
    await navigator.clipboard.writeText(text)
    return { copied: true }
  } catch {
    return { copied: false }
  }
})

/** `ask_user` runs in the browser and waits for the user: its card renders the question and answers it. */
export const askUserRequests = userRequests<{ question: string; options: string[] }, { choice: string }>()
const askUserTool = askUser.client(askUserRequests.execute)

/** Every tool the model may call: definitions of server tools type their parts; client tools run here. */
export const chatTools = [getWeather, sendEmail, transferMoney, deleteFiles, setThemeTool, browserInfoTool, copyTool, chartTemperatures, bookMeeting, askUserTool, think] as const
