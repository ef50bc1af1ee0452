// The tools' icons as inline SVG: emoji draw as empty boxes on machines without an emoji font
// (many Linux desktops, CI browsers). A tool's `metadata.icon` names one of these.

const PATHS = {
  cloud: 'M7 18h10a4 4 0 0 0 .6-7.95A6 6 0 0 0 6.2 9.1 4.5 4.5 0 0 0 7 18Z',
  mail: 'M3 6h18v12H3Z M3 7l9 6 9-6',
  trash: 'M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13 M10 11v6 M14 11v6',
  contrast: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18Z M12 3v18 M12 3a9 9 0 0 1 0 18',
  compass: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18Z M15.5 8.5l-2 5-5 2 2-5Z',
  clipboard: 'M9 4h6v3H9Z M8 5H5v16h14V5h-3 M8 12h8 M8 16h5',
  chart: 'M4 20h16 M7 20v-6 M12 20V8 M17 20v-9',
  calendar: 'M4 6h16v14H4Z M4 10h16 M8 3v5 M16 3v5',
  question: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18Z M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.6V14 M12 17.5v.01',
  thought: 'M5 15a4 4 0 0 1 1-7.9A5 5 0 0 1 15.6 6 4 4 0 0 1 19 13.5a3 3 0 0 1-4 2.5H7a2 2 0 0 1-2-1Z M6 19.5a1 1 0 1 0 0 .01 M3.5 21.5v.01',
  banknote: 'M3 7h18v10H3Z M12 9.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5Z M6.5 10v4 M17.5 10v4',
  wrench: 'M14.5 6.5a4 4 0 0 0 5 5L12 19a2.1 2.1 0 0 1-3-3l7.5-7.5a4 4 0 0 1-5-5Z',
} as const

export type IconName = keyof typeof PATHS

export const isIconName = (name: unknown): name is IconName => typeof name === 'string' && name in PATHS

/** A 1em line icon in the current text color; decorative (the tool's name is next to it). */
export function Icon({ name, className }: { readonly name: unknown; readonly className?: string }) {
  return (
    <svg
      className={className ? `icon ${className}` : 'icon'}
      data-icon={isIconName(name) ? name : 'wrench'}
      viewBox="0 0 24 24"
      width="1em"
      height="1em"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={PATHS[isIconName(name) ? name : 'wrench']} />
    </svg>
  )
}
