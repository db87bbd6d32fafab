// SPDX-License-Identifier: GPL-2.0
/*
 * Load a speedscope file into speedscope itself (the npm package's
 * built app) in headless Chromium, as its #profileURL= link does, and
 * print what the app shows as JSON for the bats test:
 *
 *   node speedscope.cjs SPEEDSCOPE-DIR FILE.json SHOT.png
 *
 * Every request goes to a made-up origin that the script answers from
 * local files: no server, no network. title: the document title the app
 * sets from the imported profile; text: the visible text (profile name,
 * errors); errors: exceptions the page threw; dialogs: the messages of
 * the app's alert()s (how it refuses a file it cannot import).
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
	       '--no-first-run', '--disable-background-networking',
	       '--disable-component-update', '--disable-sync'];
const ORIGIN = 'http://speedscope.invalid';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
		'.json': 'application/json', '.wasm': 'application/wasm',
		'.png': 'image/png', '.woff2': 'font/woff2', '.txt': 'text/plain' };

async function run(dir, file, shot) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
	const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
	const errors = [];
	const dialogs = [];
	let refused;
	const refusal = new Promise((resolve) => { refused = resolve; });

	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('dialog', (d) => {
		dialogs.push(d.message());
		refused();
		d.dismiss().catch(() => {});
	});
	await page.route('**/*', (route) => {
		const url = new URL(route.request().url());
		let p;

		if (url.origin !== ORIGIN)
			return route.abort();
		p = url.pathname === '/profile.json' ? file : path.join(dir, url.pathname);
		if (!fs.existsSync(p))
			return route.fulfill({ status: 404, body: 'not found' });
		return route.fulfill({ status: 200, body: fs.readFileSync(p),
			contentType: TYPES[path.extname(p)] || 'application/octet-stream' });
	});
	await page.goto(ORIGIN + '/index.html#profileURL=' +
			encodeURIComponent(ORIGIN + '/profile.json'), { waitUntil: 'load' });
	/*
	 * the app imports, then renames the document after the profile, or
	 * refuses the file in an alert(): whichever comes first (waiting out
	 * the timeout for a refused file took 20 s a test run)
	 */
	await Promise.race([
		page.waitForFunction(() => document.title !== 'speedscope', null,
				     { timeout: 20000 }).catch(() => {}),
		refusal,
	]);
	await page.waitForTimeout(500);
	const out = await page.evaluate(() => ({
		title: document.title,
		text: document.body.innerText,
		canvases: document.querySelectorAll('canvas').length,
	}));
	out.errors = errors;
	out.dialogs = dialogs;
	await page.screenshot({ path: shot });
	await browser.close();
	return out;
}

const [dir, file, shot] = process.argv.slice(2);
run(dir, file, shot).then((out) => {
	process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}, (e) => {
	process.stderr.write('speedscope.cjs: ' + (e.stack || e) + '\n');
	process.exit(1);
});
