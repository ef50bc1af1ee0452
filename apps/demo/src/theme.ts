export type Theme = 'light' | 'dark'

const KEY = 'toolgate-demo-theme'

/** Switches the page's theme and remembers it across reloads. */
export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme
  try {
    localStorage.setItem(KEY, theme)
  } catch {
    // Private mode: the theme simply is not remembered.
  }
}

export function restoreTheme(): void {
  let saved: string | null = null
  try {
    saved = localStorage.getItem(KEY)
  } catch {
    saved = null
  }
  const preferred = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
  document.documentElement.dataset.theme = saved === 'dark' || saved === 'light' ? saved : preferred
}
