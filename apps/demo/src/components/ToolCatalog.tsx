import { useEffect, useState } from 'react'
import { Icon } from './Icon.tsx'

interface CatalogEntry {
  readonly name: string
  readonly title?: string
  readonly description: string
  readonly runsOn: 'server' | 'browser'
  readonly needsApproval: boolean | 'policy'
  readonly metadata: { readonly icon?: string; readonly display?: string }
  readonly inputSchema: unknown
}

const APPROVAL_LABELS = { true: 'always asks', false: 'never asks', policy: 'asks by policy' } as const

/** The tools, defined once, and the JSON Schema each declares to the model (served by /api/tools). */
export function ToolCatalog() {
  const [tools, setTools] = useState<readonly CatalogEntry[]>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    const controller = new AbortController()
    fetch('/api/tools', { signal: controller.signal })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
      .then(setTools, (reason: Error) => {
        if (!controller.signal.aborted) setError(reason.message)
      })
    return () => controller.abort()
  }, [])

  return (
    <details className="catalog">
      <summary>The tools behind this demo</summary>
      {error && <p role="alert">Could not load the tools: {error}</p>}
      <ul className="catalog__list" aria-label="Tools">
        {tools?.map((tool) => (
          <li key={tool.name} className="catalog__item">
            <details>
              <summary>
                <Icon name={tool.metadata.icon ?? (tool.metadata.display === 'thought' ? 'thought' : undefined)} /> <strong>{tool.title ?? tool.name}</strong> <code>{tool.name}</code>
                <span className="badge">{tool.runsOn}</span>
                <span className="badge">{APPROVAL_LABELS[String(tool.needsApproval) as keyof typeof APPROVAL_LABELS]}</span>
              </summary>
              <p>{tool.description}</p>
              <pre className="tool-card__json" aria-label={`JSON Schema of ${tool.name}`}>
                {JSON.stringify(tool.inputSchema, null, 2)}
              </pre>
            </details>
          </li>
        ))}
      </ul>
    </details>
  )
}
