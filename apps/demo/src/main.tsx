import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.tsx'
import { OutboxPage } from './pages/OutboxPage.tsx'
import { ReviewPage } from './pages/ReviewPage.tsx'
import { restoreTheme } from './theme.ts'
import './styles.css'

restoreTheme()
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {location.pathname === '/outbox' ? (
      <OutboxPage />
    ) : location.pathname === '/review' ? (
      <ReviewPage token={new URLSearchParams(location.search).get('token') ?? ''} />
    ) : (
      <App />
    )}
  </StrictMode>,
)
