// Debian's Chromium, never a downloaded browser. These flags keep it from reaching for the
// network, which this machine (and CI) does not have. Shared by the Playwright config and the
// starter test (test/starter), which drives Chromium from vitest.
export const chromium = {
  executablePath: process.env.PLAYWRIGHT_CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
}
