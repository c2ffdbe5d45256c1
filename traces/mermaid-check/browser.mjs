// The headless Chromium both checks use: Debian's chromium (or $CHROMIUM) under
// playwright-core, with a fresh, empty profile each run and its background networking off.
// `page(context)` gives a page that refuses every request that is not a local file.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'sharetxn-chromium-'));
  // Playwright passes the profile as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1600, height: 1000 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

// A page of `context` on which any request that is not a local file is refused (a bug in
// the checker or the page); `refused` collects their addresses.
export async function offlinePage(context, refused = []) {
  const page = await context.newPage();
  await page.route(/^(?!file:)/, (route) => {
    refused.push(route.request().url());
    return route.abort();
  });
  return page;
}
