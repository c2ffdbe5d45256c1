// Checks a `sharetxn report` page in Debian's headless Chromium, driven by playwright-core:
// the page opens from a file with every non-file request refused, every drawn sequence
// diagram renders with the messages and notes it says it has, every link on the page
// lands on an element, every matrix cell is a link, and every finding's Mermaid source
// parses and renders with the real Mermaid library (node_modules/mermaid) to the same
// participants, messages and notes as the tool's own drawing.
//
// usage: node report.mjs PAGE.html OUT_DIR
// Writes OUT_DIR/report.png (the whole page) and one line per finding; exit 1 on any
// failure, 2 on bad usage.
import { launch, offlinePage } from './browser.mjs';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [pagePath, outDir] = process.argv.slice(2);
if (!pagePath || !outDir) {
  console.error('usage: node report.mjs PAGE.html OUT_DIR');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

const { context, close } = await launch();
const failures = [];
const fail = (what) => {
  failures.push(what);
  console.log(`FAIL ${what}`);
};
try {
  const refused = [];
  const page = await offlinePage(context, refused);
  await page.goto(pathToFileURL(resolve(pagePath)).href);
  if (refused.length) fail(`the page asked the network for ${refused.join(', ')}`);
  const scripts = await page.evaluate(() => document.querySelectorAll('script').length);
  if (scripts) fail(`the page has ${scripts} scripts; it must need none`);
  const links = await page.evaluate(() => {
    const all = [...document.querySelectorAll('a[href^="#"]')];
    const dangling = all.filter((a) => !document.getElementById(a.getAttribute('href').slice(1)));
    const cells = [...document.querySelectorAll('h3[id^="s-"] + table td:not(:first-child)')];
    const bare = cells.filter((td) => !td.querySelector('a[href^="#"]'));
    return {
      total: all.length,
      dangling: dangling.map((a) => a.getAttribute('href')),
      cells: cells.length,
      bare: bare.length,
    };
  });
  if (links.dangling.length) fail(`links to nothing: ${links.dangling.join(', ')}`);
  if (links.bare) fail(`${links.bare} of ${links.cells} matrix cells are not links`);
  console.log(`links: ${links.total} in-page links, all land; ${links.cells} matrix cells, all links`);
  const drawn = await page.evaluate(() =>
    [...document.querySelectorAll('section.finding')].map((s) => {
      const svg = s.querySelector('svg.sequence');
      const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
      return {
        id: s.id,
        width: box.width,
        height: box.height,
        participants: svg ? Number(svg.dataset.participants) : -1,
        messages: svg ? Number(svg.dataset.messages) : -1,
        notes: svg ? Number(svg.dataset.notes) : -1,
        actorBoxes: svg ? svg.querySelectorAll('g.actor').length : 0,
        arrows: svg ? svg.querySelectorAll('g.message').length : 0,
        noteBoxes: svg ? svg.querySelectorAll('g.note').length : 0,
        steps: s.querySelectorAll('table.steps tr').length - 1,
        mermaid: s.querySelector('pre.mermaid-source')?.textContent ?? '',
      };
    }),
  );
  await checkStepper(page);
  await page.screenshot({ path: join(outDir, 'report.png'), fullPage: true, timeout: 180000 });
  await checkFindings(drawn);
} finally {
  await close();
}
console.log(failures.length ? `${failures.length} failures` : 'report page: every check passed');
process.exit(failures.length ? 1 : 0);

// The step-through of one finding (txn_atomicity on seed/ctp when the page has it): the
// first step shows alone; next, previous and a click on the step list each show exactly
// the step they name, highlight its row, and show that step's message and actor changes
// as the step table has them; next walks every step to the last.
async function checkStepper(page) {
  const sections = await page.evaluate(() =>
    [...document.querySelectorAll('section.finding')].filter((s) => s.querySelector('.stepper')).map((s) => s.id),
  );
  if (!sections.length) return fail('no finding has a step-through');
  const id = sections.find((s) => s.includes('txn_atomicity') && s.includes('seed') && s.includes('ctp') && !s.includes('race')) ?? sections[0];
  const section = page.locator(`section[id="${id}"]`);
  const shown = () =>
    section.evaluate((s) => {
      const panes = [...s.querySelectorAll('.step-pane')].filter((p) => getComputedStyle(p).display !== 'none');
      const lit = [...s.querySelectorAll('.step-list li')].findIndex((li) => getComputedStyle(li).fontWeight === '700');
      const rows = [...s.querySelectorAll('table.steps tr')].filter((r) => !r.classList.contains('no-return')).slice(1);
      const step = panes.length === 1 ? Number(panes[0].dataset.step) : -1;
      const row = rows[step - 1];
      return {
        visible: panes.length,
        step,
        lit: lit + 1,
        text: panes[0]?.innerText ?? '',
        changes: panes[0] ? panes[0].querySelectorAll('table.actor-changes li').length : 0,
        message: row ? row.children[5].innerText : '',
        changed: row ? row.children[6].innerText.split('; ')[0].replace(/ \(\+\d+ more\)$/, '') : '',
        total: rows.length,
      };
    });
  const expect = async (step, how) => {
    const s = await shown();
    if (s.visible !== 1 || s.step !== step || s.lit !== step) {
      fail(`${id}: after ${how} ${s.visible} panes show, step ${s.step}, row ${s.lit} lit; wanted step ${step}`);
    } else if (!s.text.includes(s.message) || (s.changed && !s.text.includes(s.changed))) {
      fail(`${id}: step ${step}'s pane lacks "${s.message}" or "${s.changed}"`);
    }
    return s;
  };
  const first = await expect(1, 'loading');
  const visiblePane = () => section.locator('.step-pane:visible');
  await visiblePane().locator('label.next').click();
  const second = await expect(2, 'next');
  if (second.text === first.text) fail(`${id}: next did not change the pane`);
  await section.locator('.step-list li').nth(4).locator('label').click();
  await expect(5, 'a click on step 5 in the list');
  await visiblePane().locator('label.prev').click();
  await expect(4, 'previous');
  let walked = 4;
  let changes = 0;
  while (walked < first.total) {
    await visiblePane().locator('label.next').click();
    walked += 1;
    changes += (await expect(walked, `next to step ${walked}`)).changes;
  }
  const last = await shown();
  console.log(
    `step-through: ${id}: ${first.total} steps, next/previous/list clicks each show the step they name; ` +
      `steps 5-${first.total} show ${changes} actor changes; last step: ${last.text.split('\n')[0]}`,
  );
}

// Each drawn diagram against its own counts, then its Mermaid source in the real library.
async function checkFindings(drawn) {
  const library = join(here, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js');
  const html = join(outDir, 'mermaid-report-check.html');
  writeFileSync(
    html,
    `<!doctype html><html><head><meta charset="utf-8"><script src="${pathToFileURL(library)}">` +
      `</script></head><body><div id="out"></div></body></html>`,
  );
  const page = await offlinePage(context);
  await page.goto(pathToFileURL(resolve(html)).href);
  await page.evaluate(() =>
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'default' }),
  );
  for (const [i, d] of drawn.entries()) {
    if (!(d.width > 0 && d.height > 0)) fail(`${d.id}: the diagram has no size`);
    if (d.arrows !== d.messages || d.noteBoxes !== d.notes || d.actorBoxes !== 2 * d.participants) {
      fail(`${d.id}: drew ${d.arrows} messages, ${d.noteBoxes} notes, ${d.actorBoxes} boxes`);
    }
    const m = await page.evaluate(
      async ({ text, id }) => {
        try {
          const { svg } = await mermaid.render(id, text);
          const out = document.getElementById('out');
          out.innerHTML = svg;
          const root = out.querySelector('svg');
          return {
            ok: true,
            participants: root.querySelectorAll('rect.actor.actor-top, g.actor-man.actor-top').length,
            messages: root.querySelectorAll('line[class^="messageLine"], path[class^="messageLine"]').length,
            notes: root.querySelectorAll('rect.note').length,
          };
        } catch (e) {
          return { ok: false, error: String(e && e.message ? e.message : e).split('\n').join(' ') };
        }
      },
      { text: d.mermaid, id: `m${i}` },
    );
    if (!m.ok) {
      fail(`${d.id}: Mermaid cannot render its source: ${m.error}`);
      continue;
    }
    if (m.participants !== d.participants || m.messages !== d.messages || m.notes !== d.notes) {
      fail(
        `${d.id}: Mermaid draws ${m.participants}/${m.messages}/${m.notes}, ` +
          `the page ${d.participants}/${d.messages}/${d.notes} (participants/messages/notes)`,
      );
      continue;
    }
    console.log(
      `ok   ${d.id}: ${d.participants} participants, ${d.messages} messages, ${d.notes} notes, ` +
        `${d.steps} steps, ${Math.round(d.width)}x${Math.round(d.height)} px; Mermaid agrees`,
    );
  }
}
