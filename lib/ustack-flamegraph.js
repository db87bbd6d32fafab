// SPDX-License-Identifier: LGPL-2.1
/*
 * The script of trace-cmd ustack's flame graphs (lib/ustack-flamegraph.c
 * embeds it): tooltips, click to zoom, reset, search.
 *
 * The same <script> defines the data first: FRAMES (name, class, binary
 * and source file as STRINGS indices, lowest and highest source line),
 * EVENTS (names, when boxes carry per-event counts) and CONF (geometry,
 * total). Every box is <g data-f data-n [data-m] [data-e]><rect/>[<text/>]
 * </g> in #frames, in depth-first order: a box's subtree is the boxes
 * after it that are deeper than it.
 */
(function () {
	'use strict';

	var KINDS = ['user function', 'inlined call (inlined into its caller)', 'JIT code',
		     'kernel function', 'unresolved (no symbol)', 'task', 'note',
		     'merged boxes', 'all samples'];
	var svg = document.documentElement;
	var frames = document.getElementById('frames');
	var tip = document.getElementById('tip');
	var details = document.getElementById('details');
	var matchedText = document.getElementById('matched');
	var searchButton = document.getElementById('search');
	var unzoomButton = document.getElementById('unzoom');
	var boxes = null;
	var zoomed = null;
	var searching = null;

	function num(n) {
		return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
	}

	function pct(n, total) {
		return (100 * n / total).toFixed(2) + '%';
	}

	function boxName(b) {
		if (b.f === 1)
			return '[' + b.g.getAttribute('data-m') + ' merged]';
		return FRAMES[b.f][0];
	}

	/* Geometry of every box, read once at the first use */
	function init() {
		var gs, g, r, y, i, depth;

		if (boxes)
			return boxes;
		boxes = [];
		gs = frames.children;
		for (i = 0; i < gs.length; i++) {
			g = gs[i];
			r = g.firstChild;
			y = +r.getAttribute('y');
			if (CONF.reverse)
				depth = (y - CONF.top) / CONF.box;
			else
				depth = (CONF.height - CONF.bottom - CONF.box - y) / CONF.box;
			g.setAttribute('data-i', i);
			boxes.push({
				g: g, rect: r, text: g.childNodes[1] || null,
				x: +r.getAttribute('x'), w: +r.getAttribute('width'),
				y: y, depth: Math.round(depth),
				f: +g.getAttribute('data-f'), n: +g.getAttribute('data-n')
			});
		}
		return boxes;
	}

	/* Draw box @b at @x, @w wide, with as much of its name as fits */
	function place(b, x, w) {
		var fit = Math.floor((w - 6) / CONF.charWidth);
		var name;

		b.rect.setAttribute('x', x.toFixed(2));
		b.rect.setAttribute('width', w.toFixed(2));
		if (fit < 3) {
			if (b.text)
				b.text.textContent = '';
			return;
		}
		if (!b.text) {
			b.text = document.createElementNS('http://www.w3.org/2000/svg', 'text');
			b.text.setAttribute('y', (b.y + CONF.box - 4.5).toFixed(1));
			b.g.appendChild(b.text);
		}
		name = boxName(b);
		b.text.setAttribute('x', (x + 3).toFixed(2));
		b.text.textContent = name.length > fit ? name.slice(0, fit - 2) + '..' : name;
	}

	/* Index past the last box of @i's subtree */
	function subtreeEnd(i) {
		var j = i + 1;

		while (j < boxes.length && boxes[j].depth > boxes[i].depth)
			j++;
		return j;
	}

	function zoom(i) {
		var full = CONF.width - 2 * CONF.margin;
		var t, end, scale, j, d, b;

		init();
		t = boxes[i];
		end = subtreeEnd(i);
		scale = full / t.w;
		for (j = 0; j < boxes.length; j++) {
			b = boxes[j];
			b.g.classList.remove('hidden', 'zoomed-parent');
			if (j >= i && j < end)
				place(b, CONF.margin + (b.x - t.x) * scale, b.w * scale);
			else
				b.g.classList.add('hidden');
		}
		/* the ancestors: full width, dimmed */
		d = t.depth;
		for (j = i - 1; j >= 0 && d > 0; j--) {
			b = boxes[j];
			if (b.depth !== d - 1)
				continue;
			d = b.depth;
			b.g.classList.remove('hidden');
			b.g.classList.add('zoomed-parent');
			place(b, CONF.margin, full);
		}
		zoomed = i;
		unzoomButton.classList.remove('hide');
	}

	function reset() {
		var j, b;

		init();
		for (j = 0; j < boxes.length; j++) {
			b = boxes[j];
			b.g.classList.remove('hidden', 'zoomed-parent');
			place(b, b.x, b.w);
		}
		zoomed = null;
		unzoomButton.classList.add('hide');
	}

	function matcher(term) {
		var re;

		try {
			re = new RegExp(term);
		} catch (e) {
			return function (s) { return s.indexOf(term) >= 0; };
		}
		return function (s) { return re.test(s); };
	}

	/*
	 * Highlight the boxes whose name matches @term (a regular expression,
	 * or plain text when it is not one) and say which share of the
	 * samples they cover: a sample counts once, at its outermost match.
	 */
	function search(term) {
		var match = matcher(term);
		var sum = 0, cover = -1, j, b, m;

		init();
		for (j = 0; j < boxes.length; j++) {
			b = boxes[j];
			if (cover >= 0 && b.depth <= cover)
				cover = -1;
			m = b.f !== 0 && match(boxName(b));
			b.rect.classList.toggle('match', m);
			if (m && cover < 0) {
				sum += b.n;
				cover = b.depth;
			}
		}
		searching = term;
		matchedText.textContent = 'Matched: ' + pct(sum, CONF.total) + ' (' + num(sum) +
			' of ' + num(CONF.total) + ' samples)';
		searchButton.textContent = 'Reset Search';
		return sum;
	}

	function clearSearch() {
		var j;

		init();
		for (j = 0; j < boxes.length; j++)
			boxes[j].rect.classList.remove('match');
		searching = null;
		matchedText.textContent = ' ';
		searchButton.textContent = 'Search';
	}

	function askSearch() {
		var term;

		if (searching !== null) {
			clearSearch();
			return;
		}
		term = window.prompt('Search for a frame (regular expression)', '');
		if (term)
			search(term);
	}

	/* ---------------------------------------------------------------- */
	/* Tooltips                                                         */
	/* ---------------------------------------------------------------- */

	function tipLines(b) {
		var fr = FRAMES[b.f], lines = [boxName(b)], evs, s, j;

		if (b.f === 1)
			lines.push(b.g.getAttribute('data-m') + ' boxes under ' +
				   (CONF.minPermille / 10).toFixed(1) + '% of the samples, merged');
		else
			lines.push('kind: ' + KINDS[fr[1]]);
		if (fr[2])
			lines.push('binary: ' + STRINGS[fr[2]]);
		if (fr[3]) {
			s = 'source: ' + STRINGS[fr[3]];
			if (fr[4] && fr[4] === fr[5])
				s += ':' + fr[4];
			else if (fr[4])
				s += ', lines ' + fr[4] + '-' + fr[5];
			lines.push(s);
		}
		s = 'samples: ' + num(b.n) + ' (' + pct(b.n, CONF.total) + ')';
		if (zoomed !== null && boxes[zoomed].n !== CONF.total)
			s += ', ' + pct(b.n, boxes[zoomed].n) + ' of the zoomed box';
		lines.push(s);
		evs = b.g.getAttribute('data-e');
		if (evs && EVENTS.length) {
			evs = evs.split(',');
			for (j = 0; j < evs.length; j++)
				if (+evs[j])
					lines.push('  ' + EVENTS[j] + ': ' + num(evs[j]));
		}
		return lines;
	}

	function showTip(b, evt) {
		var text = tip.lastChild, rect = tip.firstChild;
		var lines = tipLines(b), w = 0, j, t, pt, x, y, bb;

		while (text.firstChild)
			text.removeChild(text.firstChild);
		for (j = 0; j < lines.length; j++) {
			t = document.createElementNS('http://www.w3.org/2000/svg', 'tspan');
			t.setAttribute('x', 6);
			t.setAttribute('dy', j ? 15 : 14);
			if (!j)
				t.setAttribute('font-weight', 'bold');
			t.textContent = lines[j];
			text.appendChild(t);
		}
		tip.classList.remove('hide');
		bb = text.getBBox();
		w = bb.width + 12;
		rect.setAttribute('width', w);
		rect.setAttribute('height', bb.height + 8);
		pt = svg.createSVGPoint();
		pt.x = evt.clientX;
		pt.y = evt.clientY;
		pt = pt.matrixTransform(svg.getScreenCTM().inverse());
		x = pt.x + 12;
		y = pt.y + 16;
		if (x + w > CONF.width)
			x = Math.max(0, pt.x - w - 12);
		if (y + bb.height + 8 > CONF.height)
			y = Math.max(0, pt.y - bb.height - 16);
		tip.setAttribute('transform', 'translate(' + x.toFixed(0) + ',' + y.toFixed(0) + ')');
		details.textContent = boxName(b) + ' (' + num(b.n) + ' samples, ' +
			pct(b.n, CONF.total) + ')';
	}

	function boxOf(evt) {
		var g = evt.target.closest ? evt.target.closest('#frames > g') : null;

		if (!g)
			return null;
		init();
		return +g.getAttribute('data-i');
	}

	frames.addEventListener('mousemove', function (evt) {
		var i = boxOf(evt);

		if (i !== null)
			showTip(boxes[i], evt);
	});
	frames.addEventListener('mouseleave', function () {
		tip.classList.add('hide');
		details.textContent = ' ';
	});
	frames.addEventListener('click', function (evt) {
		var i = boxOf(evt);

		if (i === null)
			return;
		if (i === 0)
			reset();
		else
			zoom(i);
	});
	unzoomButton.addEventListener('click', reset);
	searchButton.addEventListener('click', askSearch);
	window.addEventListener('keydown', function (evt) {
		if ((evt.ctrlKey && evt.key === 'f') || evt.key === '/') {
			evt.preventDefault();
			askSearch();
		} else if (evt.key === 'Escape') {
			reset();
			clearSearch();
		}
	});

	/* ?s=REGEX searches at load, as flamegraph.pl's files do */
	(function () {
		var m = /[?&]s=([^&]*)/.exec(window.location.search || '');

		if (m && m[1])
			search(decodeURIComponent(m[1].replace(/\+/g, ' ')));
	})();

	/* For scripts driving the page (tests, automation) */
	window.flamegraph = {
		search: search, clearSearch: clearSearch, zoom: zoom, reset: reset,
		boxes: function () { return init().length; }
	};
})();
