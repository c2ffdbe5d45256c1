// Renders Mermaid diagrams with the real Mermaid library (node_modules/mermaid) in Debian's
// headless Chromium, driven by playwright-core. No network: the page is a local file that
// loads the library from node_modules, and Chromium runs with its background networking off.
//
// usage: node render.mjs OUT_DIR DIAGRAM.mmd...
// For each diagram: mermaid.parse, then mermaid.render; the SVG goes to OUT_DIR/NAME.svg and
// a screenshot of it to OUT_DIR/NAME.png; one line per diagram (participants, messages, SVG
// bytes). Exit 1 if any diagram fails to parse or render, 2 on bad usage.
import { launch, offlinePage } from './browser.mjs';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { basename, join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [outDir, ...files] = process.argv.slice(2);
if (!outDir || files.length === 0) {
  console.error('usage: node render.mjs OUT_DIR DIAGRAM.mmd...');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

const library = join(here, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js');
const page_html = join(outDir, 'mermaid-check.html');
writeFileSync(
  page_html,
  `<!doctype html><html><head><meta charset="utf-8">
<script src="${pathToFileURL(library)}"></script></head>
<body style="margin:0;background:white"><div id="out"></div></body></html>`,
);

const { context, close } = await launch();
let failed = 0;
try {
  const page = await offlinePage(context);
  await page.goto(pathToFileURL(resolve(page_html)).href);
  await page.evaluate(() =>
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'default' }),
  );
  const version = JSON.parse(
    readFileSync(join(here, 'node_modules', 'mermaid', 'package.json'), 'utf8'),
  ).version;
  const agent = await page.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0]);
  console.log(`mermaid ${version} in headless ${agent}`);
  for (const [i, file] of files.entries()) {
    const name = basename(file).replace(/\.mmd$/, '');
    const text = readFileSync(file, 'utf8');
    const result = await page.evaluate(
      async ({ text, id }) => {
        try {
          await mermaid.parse(text);
          const { svg } = await mermaid.render(id, text);
          const out = document.getElementById('out');
          out.innerHTML = svg;
          const root = out.querySelector('svg');
          // Each participant is drawn twice (top and bottom); count the top boxes.
          const participants = root.querySelectorAll('rect.actor.actor-top, g.actor-man.actor-top').length;
          const messages = root.querySelectorAll('line[class^="messageLine"], path[class^="messageLine"]').length;
          const notes = root.querySelectorAll('rect.note').length;
          const box = root.getBoundingClientRect();
          return { ok: true, svg, participants, messages, notes, width: box.width, height: box.height };
        } catch (e) {
          return { ok: false, error: String(e && e.message ? e.message : e).split('\n').join(' ') };
        }
      },
      { text, id: `diagram${i}` },
    );
    if (!result.ok) {
      failed += 1;
      console.log(`FAIL ${name}: ${result.error}`);
      continue;
    }
    writeFileSync(join(outDir, `${name}.svg`), result.svg);
    await page.setViewportSize({
      width: Math.max(400, Math.ceil(result.width)),
      height: Math.max(300, Math.ceil(result.height)),
    });
    await page.locator('#out svg').screenshot({ path: join(outDir, `${name}.png`) });
    console.log(
      `ok   ${name}: ${result.participants} participants, ${result.messages} messages, ` +
        `${result.notes} notes, SVG ${Buffer.byteLength(result.svg)} bytes`,
    );
  }
} finally {
  await close();
}
console.log(`${files.length - failed} of ${files.length} diagrams rendered`);
process.exit(failed ? 1 : 0);
