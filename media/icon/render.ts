// Renders media/icon/icon.svg to media/icon.png (128×128, the size the Marketplace and the Extensions
// view show) with the same headless Chromium the e2e tests drive. Run after changing the SVG:
//   npx tsx media/icon/render.ts
import * as fs from 'fs';
import * as path from 'path';
import { chromium } from 'playwright-core';

const SIZE = 128;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

async function main(): Promise<void> {
  const svg = fs.readFileSync(path.join(__dirname, 'icon.svg'), 'utf8');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    const out = path.join(__dirname, '..', 'icon.png');
    await page.locator('svg').screenshot({ path: out, omitBackground: true });
    console.log(`wrote ${out}`);
  } finally {
    await browser.close();
  }
}

void main();
