/** @module @toolgate/ai-react/devtools */
/**
 * `@toolgate/ai-react/devtools`: a panel that shows a thread as the server holds it, for
 * development. Its own entry: `useChat`'s bundle never includes it.
 */
export { ToolgateDevtools, type ToolgateDevtoolsProps } from './ToolgateDevtools.tsx'
export { useDevtoolsSnapshot, type DevtoolsSource, type DevtoolsState } from './useDevtoolsSnapshot.ts'
