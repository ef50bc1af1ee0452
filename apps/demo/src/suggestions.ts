/** Prompts the embedded scripted model understands, one per path through the tools. */
export const suggestions = [
  { label: 'Weather', prompt: 'What is the weather in Paris?' },
  { label: 'Email a colleague', prompt: 'Email alice@acme.test about the launch' },
  { label: 'Email outside', prompt: 'Email bob@example.com about the launch' },
  { label: 'Delete files', prompt: 'Delete the *.log files' },
  { label: 'Dark mode', prompt: 'Switch to dark mode' },
  { label: 'Time zone', prompt: 'What is my time zone?' },
  { label: 'Clipboard', prompt: 'Copy "hello world" to my clipboard' },
  { label: 'Several at once', prompt: 'Give me a morning briefing' },
  { label: 'Book a meeting', prompt: 'Book a meeting for the launch review' },
  { label: 'Two approvals', prompt: 'Clean up the logs and temp files' },
  { label: 'A subagent', prompt: 'Ask the research assistant to look into the launch and email a summary to carol@example.com' },
  { label: 'Ask me', prompt: 'Pick a color for me' },
  { label: 'A failing tool', prompt: 'What is the weather in Atlantis?' },
  { label: 'Long answer', prompt: 'Tell me a story' },
] as const
