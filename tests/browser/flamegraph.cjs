// SPDX-License-Identifier: GPL-2.0
/*
 * Drive one flame graph in headless Chromium (Debian's /usr/bin/chromium
 * through playwright-core) the way a person does, and print what it saw
 * as JSON for the bats test to check:
 *
 *   node flamegraph.cjs FILE.svg SHOT.png [--click NAME] [--search TERM] [--zoom NAME]
 *                       [--hover NAME,NAME...]
 *
 * load: milliseconds from navigation to the first frame painted with
 * every box (after a small file warmed the renderer up); loadEvent: the
 * page's own navigation-to-load time; boxes, title, subtitle. With --click: the box named NAME
 * before and after a real mouse click on it (x, width), the page just
 * before and after the click (beforeClick, afterClick: the tooltip), how
 * many boxes got hidden or dimmed, the Reset Zoom button, then the
 * tooltip over it. subtitleBoxes: where the lines under the title begin
 * and end.
 * With --search: the Search button clicked, TERM typed into its prompt,
 * the boxes highlighted and the "Matched:" line. Reset Zoom is clicked
 * last and the box's width read again. The screenshot is taken while
 * zoomed and searched (what a person would look at). --zoom zooms through
 * the script's API into the first box named NAME, which may be too narrow
 * to click (drawn as a sliver), and says how it is drawn then. --hover
 * moves the mouse over the first box of each NAME (before any click) and
 * gives, per name, the box's fill and the tooltip's lines (hovers).
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
	       '--no-first-run', '--disable-background-networking',
	       '--disable-component-update', '--disable-sync'];

function parseArgs(argv) {
	const a = { svg: argv[2], shot: argv[3] };

	for (let i = 4; i < argv.length; i += 2)
		a[argv[i].replace(/^--/, '')] = argv[i + 1];
	if (!a.svg || !a.shot)
		throw new Error('usage: flamegraph.cjs FILE.svg SHOT.png [--click NAME] [--search TERM] ' +
				'[--zoom NAME] [--hover NAME,...]');
	return a;
}

/* The box named @name, as the page draws it now */
function boxState(page, name) {
	return page.evaluate((name) => {
		const box = (g) => +g.getAttribute('data-i');
		const gs = Array.from(document.querySelectorAll('#frames > g'));
		const g = gs.find((g) => FRAMES[BOXES[3 * box(g) + 1]][0] === name);

		if (!g)
			return null;
		const r = g.firstChild.getBoundingClientRect();
		return {
			x: +g.firstChild.getAttribute('x'),
			width: +g.firstChild.getAttribute('width'),
			label: g.textContent,
			fill: g.firstChild.getAttribute('fill'),
			samples: BOXES[3 * box(g) + 2],
			center: { x: r.x + r.width / 2, y: r.y + r.height / 2 },
		};
	}, name);
}

function pageState(page) {
	return page.evaluate(() => ({
		hidden: document.querySelectorAll('#frames > g.hidden').length,
		elements: document.querySelectorAll('#frames > g').length,
		dimmed: document.querySelectorAll('#frames > g.zoomed-parent').length,
		matched: document.querySelectorAll('#frames > g:not(.hidden) > rect.match').length,
		matchedNames: Array.from(document.querySelectorAll('#frames > g:not(.hidden) > rect.match'))
			.map((r) => FRAMES[BOXES[3 * +r.parentNode.getAttribute('data-i') + 1]][0]),
		matchedSlivers: (document.querySelector('#slivers path.match').getAttribute('d')
				 .match(/M/g) || []).length,
		matchedText: document.getElementById('matched').textContent,
		resetShown: !document.getElementById('unzoom').classList.contains('hide'),
		tipShown: !document.getElementById('tip').classList.contains('hide'),
		tip: Array.from(document.querySelectorAll('#tip tspan')).map((t) => t.textContent),
		details: document.getElementById('details').textContent,
	}));
}

async function clickText(page, id) {
	const r = await page.evaluate((id) => {
		const b = document.getElementById(id).getBoundingClientRect();
		return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
	}, id);
	await page.mouse.click(r.x, r.y);
}

async function run(a) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
	const page = await browser.newPage({ viewport: { width: 1220, height: 900 } });
	const out = {};
	const errors = [];

	page.on('pageerror', (e) => errors.push(String(e)));
	/*
	 * A small SVG file first, so that the time measured is the file's,
	 * not the start of a renderer process (a browser that is already up)
	 */
	const warm = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fg-')), 'warm.svg');
	fs.writeFileSync(warm, '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">' +
			 '<rect width="10" height="10"/><script>var x = [1];</script></svg>');
	await page.goto('file://' + warm, { waitUntil: 'load' });
	fs.rmSync(path.dirname(warm), { recursive: true });
	const t0 = Date.now();
	await page.goto('file://' + a.svg, { waitUntil: 'load', timeout: 60000 });
	await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
	out.load = Date.now() - t0;
	/* the page's own view: navigation start to the load event's end */
	out.loadEvent = await page.evaluate(() => {
		const n = performance.getEntriesByType('navigation')[0];
		return Math.round(n.loadEventEnd - n.startTime);
	});
	/* the whole image in the screenshot (up to 4000 px tall) */
	await page.setViewportSize(await page.evaluate(() => ({
		width: Math.min(2000, CONF.width),
		height: Math.min(4000, CONF.height),
	})));
	Object.assign(out, await page.evaluate(() => ({
		boxes: BOXES.length / 3,
		/* boxes the file drew whose colour the script would draw otherwise */
		colourMismatches: Array.from(document.querySelectorAll('#frames > g')).filter((g) =>
			g.firstChild.getAttribute('fill') !==
			window.flamegraph.colour(+g.getAttribute('data-i'))).length,
		elements: document.querySelectorAll('#frames > g').length,
		title: document.getElementById('title').textContent,
		subtitle: document.getElementById('subtitle').textContent,
		subtitle2: document.getElementById('subtitle2').textContent,
		/* where the lines under the title are drawn: inside the image? */
		subtitleBoxes: ['subtitle', 'subtitle2'].map((id) => {
			const b = document.getElementById(id).getBBox();
			return { x: b.x, right: b.x + b.width };
		}),
		api: typeof window.flamegraph,
	})));
	if (a.hover) {
		out.hovers = {};
		for (const name of a.hover.split(',')) {
			const b = await boxState(page, name);

			if (!b)
				throw new Error('no box named ' + name);
			await page.mouse.move(b.center.x, b.center.y);
			await page.mouse.move(b.center.x + 1, b.center.y);
			out.hovers[name] = { fill: b.fill, tip: (await pageState(page)).tip };
		}
		await page.mouse.move(5, 5);
	}
	if (a.click) {
		out.before = await boxState(page, a.click);
		if (!out.before)
			throw new Error('no box named ' + a.click);
		await page.mouse.move(out.before.center.x, out.before.center.y);
		out.beforeClick = await pageState(page);
		await page.mouse.click(out.before.center.x, out.before.center.y);
		/* the pointer not moved since the click */
		out.afterClick = await pageState(page);
		out.after = await boxState(page, a.click);
		await page.mouse.move(out.after.center.x, out.after.center.y);
		await page.mouse.move(out.after.center.x + 2, out.after.center.y);
		out.zoomed = await pageState(page);
	}
	if (a.zoom) {
		out.zoomTo = await page.evaluate((name) => {
			let i = 0;

			while (i < BOXES.length / 3 && FRAMES[BOXES[3 * i + 1]][0] !== name)
				i++;
			const wasElement = !!document.querySelector('#frames > g[data-i="' + i + '"]');
			window.flamegraph.zoom(i);
			const g = document.querySelector('#frames > g[data-i="' + i + '"]');
			return {
				box: i, wasElement,
				width: g ? +g.firstChild.getAttribute('width') : null,
				label: g ? g.textContent : null,
				shown: document.querySelectorAll('#frames > g:not(.hidden)').length,
			};
		}, a.zoom);
	}
	if (a.search) {
		page.once('dialog', (d) => d.accept(a.search));
		await clickText(page, 'search');
		out.searched = await pageState(page);
	}
	await page.mouse.move(5, 5);
	await page.screenshot({ path: a.shot });
	if (a.click) {
		await clickText(page, 'unzoom');
		out.reset = await boxState(page, a.click);
		out.resetState = await pageState(page);
	}
	out.errors = errors;
	await browser.close();
	return out;
}

run(parseArgs(process.argv)).then((out) => {
	process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}, (e) => {
	process.stderr.write('flamegraph.cjs: ' + (e.stack || e) + '\n');
	process.exit(1);
});
