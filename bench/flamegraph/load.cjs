// SPDX-License-Identifier: GPL-2.0
/*
 * Open one flame-graph file (our SVG, or an HTML page) in headless
 * Chromium, the same way for every tool, and print as JSON:
 *
 *   node load.cjs FILE [ROUNDS]
 *
 * ms: per round, navigation to the second animation frame after the load
 * event (what a person waits for: the page painted), after a small page
 * warmed the renderer up; heapMB, nodes: the page's JS heap and DOM nodes
 * after the last round and a garbage collection, from the DevTools
 * protocol; drawn: the elements
 * the page draws boxes with (rect and path), to show it drew something.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
	       '--no-first-run', '--disable-background-networking',
	       '--disable-component-update', '--disable-sync'];

async function warmUp(page) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fgb-'));
	const warm = path.join(dir, 'warm.html');

	fs.writeFileSync(warm, '<html><body><svg width="10" height="10"><rect width="10" height="10"/>' +
			 '</svg><script>var x = [1];</script></body></html>');
	await page.goto('file://' + warm, { waitUntil: 'load' });
	fs.rmSync(dir, { recursive: true });
}

async function openOnce(page, file) {
	await warmUp(page);
	const t0 = Date.now();
	await page.goto('file://' + file, { waitUntil: 'load', timeout: 120000 });
	await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
	return Date.now() - t0;
}

async function run(file, rounds) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
	const page = await browser.newPage({ viewport: { width: 1220, height: 900 } });
	const errors = [];
	const out = { ms: [] };

	page.on('pageerror', (e) => errors.push(String(e)));
	for (let i = 0; i < rounds; i++)
		out.ms.push(await openOnce(page, file));
	const cdp = await page.context().newCDPSession(page);
	/* what the page holds, not the garbage of the earlier opens */
	await cdp.send('HeapProfiler.collectGarbage');
	await cdp.send('Performance.enable');
	const { metrics } = await cdp.send('Performance.getMetrics');
	const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
	out.heapMB = +(m.JSHeapUsedSize / 1048576).toFixed(1);
	out.nodes = m.Nodes;
	out.drawn = await page.evaluate(() => document.querySelectorAll('rect, path').length);
	out.errors = errors;
	await browser.close();
	return out;
}

run(process.argv[2], +(process.argv[3] || 3)).then((o) => {
	console.log(JSON.stringify(o));
}, (e) => {
	console.error('load.cjs: ' + e.message);
	process.exit(1);
});
