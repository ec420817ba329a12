// Opens a formatbench report.html in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core; no browser download) in the light and the dark scheme, and checks what a
// reader would see. Usage: node check-report.mjs REPORT_HTML RESULTS_JSONL OUT_DIR
// Exits non-zero with one line per problem.
import { chromium } from 'playwright-core';
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [reportPath, resultsPath, outDir] = process.argv.slice(2);
const problems = [];

// Medians recomputed from results.jsonl: ok measured samples per cell, linear interpolation,
// of the call the run ranks by (its `call` setting, warm by default): a sample's warm calls or
// its first; a cold read's one call, or an older record's mean, where the figure is absent.
function medians() {
  const byCell = new Map();
  let call = 'warm';
  for (const line of readFileSync(resultsPath, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    if (r.kind === 'environment' && r.settings && r.settings.call) call = r.settings.call;
    if (r.kind !== 'sample' || r.status !== 'ok' || r.round == null) continue;
    const key = [r.dataset, r.backend, r.profile, r.op, r.cache, r.threads].join('|');
    if (!byCell.has(key)) byCell.set(key, []);
    byCell.get(key).push(r);
  }
  const ranked = (r) => (call === 'first' ? r.first_call_s : r.warm_call_s) ?? r.wall_s;
  for (const [key, records] of byCell) byCell.set(key, records.map(ranked));
  const out = new Map();
  for (const [key, values] of byCell) {
    values.sort((a, b) => a - b);
    const pos = (values.length - 1) * 0.5;
    const lo = Math.floor(pos), hi = Math.ceil(pos);
    out.set(key, values[lo] + (values[hi] - values[lo]) * (pos - lo));
  }
  return out;
}

const UNITS = { ns: 1e-9, 'µs': 1e-6, us: 1e-6, ms: 1e-3, s: 1 };

// "12.3 ms" → [0.0123, half a unit of the last printed digit, in seconds].
function parseDuration(text) {
  const m = text.trim().match(/^([0-9]+(?:\.([0-9]+))?)\s*(ns|µs|us|ms|s)$/);
  if (!m) return null;
  const unit = UNITS[m[3]];
  const decimals = m[2] ? m[2].length : 0;
  return [parseFloat(m[1]) * unit, 0.5 * Math.pow(10, -decimals) * unit];
}

// Every chart's text as the browser lays it out: no two labels overlap, and none is drawn
// smaller than 8 px (charts shrink with the page only down to a scale that keeps their 12 px
// text legible, then scroll).
async function checkChartText(page, where) {
  const found = await page.$$eval('svg', (svgs) => svgs.map((svg, i) => {
    const view = svg.viewBox && svg.viewBox.baseVal;
    const scale = view && view.width ? svg.getBoundingClientRect().width / view.width : 1;
    const boxes = [...svg.querySelectorAll('text')].map((t) => {
      const r = t.getBoundingClientRect();
      return { words: t.textContent, l: r.left, t: r.top, r: r.right, b: r.bottom,
        px: parseFloat(getComputedStyle(t).fontSize) * scale };
    }).filter((b) => b.r > b.l && b.b > b.t);
    return { name: svg.getAttribute('aria-label')?.slice(0, 60) ?? `svg ${i}`, boxes };
  }));
  const out = [];
  for (const chart of found) {
    for (const b of chart.boxes) {
      if (b.px < 8) { out.push(`${where}: ${chart.name}: "${b.words}" drawn at ${b.px.toFixed(1)} px`); break; }
    }
    for (let i = 0; i < chart.boxes.length; i++) {
      for (let j = i + 1; j < chart.boxes.length; j++) {
        const a = chart.boxes[i], b = chart.boxes[j];
        const w = Math.min(a.r, b.r) - Math.max(a.l, b.l);
        const h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
        if (w > 1 && h > 1) out.push(`${where}: ${chart.name}: "${a.words}" overlaps "${b.words}"`);
      }
    }
  }
  return out;
}

const expected = medians();
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const backgrounds = {};
for (const scheme of ['light', 'dark']) {
  // A laptop's window: the answer must be readable here without scrolling.
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: scheme });
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`${scheme}: console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`${scheme}: page error: ${err.message}`));
  page.on('request', (req) => {
    if (!req.url().startsWith('file:') && !req.url().startsWith('data:')) problems.push(`${scheme}: network request ${req.url()}`);
  });
  await page.goto(pathToFileURL(reportPath).href);

  const charts = await page.$$('svg.chart');
  if (charts.length === 0) problems.push(`${scheme}: no charts`);
  for (const [i, chart] of charts.entries()) {
    const label = (await chart.getAttribute('aria-label')) || `chart ${i}`;
    let visible = 0;
    for (const mark of await chart.$$('.mark')) {
      const box = await mark.boundingBox();
      if (box && box.width > 0 && box.height > 0) visible++;
    }
    if (visible === 0) problems.push(`${scheme}: ${label}: no data mark with a non-zero box`);
  }

  backgrounds[scheme] = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const shot = await page.screenshot({ fullPage: false });
  writeFileSync(join(outDir, `report-${scheme}.png`), shot);
  // A blank 1400×900 page compresses to a few KiB; a rendered report is far larger.
  const blank = await (await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: scheme })).screenshot();
  if (shot.length < 4 * blank.length) problems.push(`${scheme}: the screenshot looks blank (${shot.length} bytes vs ${blank.length} for an empty page)`);

  // The answer first: the recommendation and the table per operation in the first screen.
  const glance = await page.$eval('#glance table', (t) => {
    const r = t.getBoundingClientRect();
    return { bottom: r.bottom, right: r.right };
  }).catch(() => null);
  if (!glance) problems.push(`${scheme}: no answer table (#glance table)`);
  else if (glance.bottom > 900 || glance.right > 1400) problems.push(`${scheme}: the answer table ends at (${glance.right}, ${glance.bottom}), outside the first 1400×900 screen`);
  // Every table fits the window: none needs a sideways scroll.
  const wide = await page.$$eval('div.scroll', (divs) => divs
    .filter((d) => d.scrollWidth > d.clientWidth + 1)
    .map((d) => `${d.closest('section')?.id ?? '?'}: ${d.scrollWidth} px in ${d.clientWidth}`));
  for (const w of wide) problems.push(`${scheme}: a table scrolls sideways at 1400 px (${w})`);
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  if (pageWidth > 1400) problems.push(`${scheme}: the page is ${pageWidth} px wide at 1400`);

  problems.push(...await checkChartText(page, `${scheme} at 1400 px`));

  if (scheme === 'light') {
    // A phone: the charts' text stays legible and clear of itself.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: scheme });
    await phone.goto(pathToFileURL(reportPath).href);
    problems.push(...await checkChartText(phone, 'light at 390 px'));
    await phone.close();
    const rows = await page.$$eval('tr.cell', (trs) => trs.map((tr) => ({
      key: [tr.dataset.dataset, tr.dataset.backend, tr.dataset.profile, tr.dataset.op, tr.dataset.cache, tr.dataset.threads].join('|'),
      text: tr.querySelector('td.median')?.textContent ?? '',
    })));
    if (rows.length === 0) problems.push('no result rows (tr.cell)');
    for (const row of rows) {
      const want = expected.get(row.key);
      const got = parseDuration(row.text.replace('*', ''));
      if (want === undefined) { problems.push(`${row.key}: not in results.jsonl`); continue; }
      if (!got) { problems.push(`${row.key}: median "${row.text}" is not a duration`); continue; }
      if (Math.abs(got[0] - want) > got[1] * 1.0001) problems.push(`${row.key}: printed ${row.text}, recomputed ${want} s`);
    }
  }
  await page.close();
}
if (backgrounds.light === backgrounds.dark) problems.push(`the page background is ${backgrounds.light} in both schemes`);
await browser.close();
if (problems.length) {
  for (const p of problems) console.log(`problem: ${p}`);
  process.exit(1);
}
console.log('report ok: charts have marks in both schemes, their text is clear of itself and at least 8 px at 1400 and 390 px, screenshots are not blank, medians match results.jsonl');
