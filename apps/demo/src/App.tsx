import { useEffect, useState } from 'react'

interface CatalogEntry {
  name: string
  title?: string
  description: string
  needsApproval: boolean | 'policy'
  metadata: { icon?: string; destructive?: boolean }
  inputSchema: unknown
}

export function App() {
  const [tools, setTools] = useState<CatalogEntry[]>()
  const [error, setError] = useState<string>()
  const [open, setOpen] = useState<string>()

  useEffect(() => {
    fetch('/api/tools')
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
      .then(setTools, (e: Error) => setError(e.message))
  }, [])

  return (
    <main className="page">
      <h1>Toolgate demo</h1>
      <p>The tools this demo defines once, and the JSON Schema each one emits.</p>
      {error && <p role="alert">Could not load the tools: {error}</p>}
      {!tools && !error && <p aria-busy="true">Loading…</p>}
      <ul className="tools" aria-label="Tools">
        {tools?.map((tool) => (
          <li key={tool.name} className="tool">
            <button
              type="button"
              aria-expanded={open === tool.name}
              onClick={() => setOpen(open === tool.name ? undefined : tool.name)}
            >
              <span aria-hidden="true">{tool.metadata.icon}</span> {tool.title ?? tool.name} <code>{tool.name}</code>
            </button>
            <p>{tool.description}</p>
            {open === tool.name && (
              <pre aria-label={`JSON Schema of ${tool.name}`}>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
            )}
          </li>
        ))}
      </ul>
    </main>
  )
}
