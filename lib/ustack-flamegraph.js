// SPDX-License-Identifier: LGPL-2.1
/*
 * The script of trace-cmd ustack's flame graphs (lib/ustack-flamegraph.c
 * embeds it): tooltips, click to zoom, reset, search.
 *
 * The same <script> defines the data first. BOXES has three numbers a
 * box, the boxes in depth-first order (a box's subtree is the boxes after
 * it that are deeper, its x the end of the sibling before it): depth,
 * frame, samples. MERGED: box -> how many boxes it stands for. HIDDEN:
 * the boxes a merged box stands for, for the search, as a string
 * "box,frame[*samples],...;box,..." (frames in base 36, samples when not
 * 1, depth first, a ")" closing each box once its own are listed), read
 * at the first search. FRAMES:
 * name, class, then as far as known binary and source file (STRINGS
 * indices), lowest and highest source line. EVC: the samples of each box
 * per event of EVENTS, when there are several. CONF: geometry, the total,
 * the palette (the colours are computed as the C side does).
 *
 * The file draws itself: boxes wide enough to click are elements
 * <g data-i><rect/>[<text/>]</g> in #frames, narrower ones parts of one
 * path per class in #slivers. The script redraws the same way on zoom,
 * making elements of the boxes a zoom widens.
 */
(function () {
	'use strict';

	var KINDS = ['user function', 'inlined call (inlined into its caller)', 'JIT code',
		     'kernel function', 'unresolved (no symbol)', 'task', 'note',
		     'merged boxes', 'all samples'];
	var NS = 'http://www.w3.org/2000/svg';
	var N = BOXES.length / 3;
	var FULL = CONF.width - 2 * CONF.margin;
	var svg = document.documentElement;
	var frames = document.getElementById('frames');
	var slivers = document.getElementById('slivers');
	var tip = document.getElementById('tip');
	var details = document.getElementById('details');
	var matchedText = document.getElementById('matched');
	var searchButton = document.getElementById('search');
	var unzoomButton = document.getElementById('unzoom');
	var elements = null;		/* box number -> its element, once made */
	var origX, origW;		/* where the file drew each box */
	var curX, curW, shown;		/* where each box is drawn now */
	var matched = new Uint8Array(N);
	var zoomed = null;
	var searching = null;
	var hidden = null;		/* merged box -> the numbers of HIDDEN */

	function depth(i) { return BOXES[3 * i]; }
	function frame(i) { return BOXES[3 * i + 1]; }
	function samples(i) { return BOXES[3 * i + 2]; }
	function merged(i) { return MERGED[i] || 0; }

	/* The C side's colours: FNV-1a of the UTF-8 name, then HSL */
	function nameHash(name) {
		var bytes = new TextEncoder().encode(name), h = 2166136261, j;

		for (j = 0; j < bytes.length; j++)
			h = Math.imul(h ^ bytes[j], 16777619) >>> 0;
		return h;
	}

	function hslChannel(hue, sat, lig, n) {
		var k = n + hue / 30, a = sat * (lig < 1 - lig ? lig : 1 - lig), m;

		while (k >= 12)
			k -= 12;
		m = k - 3 < 9 - k ? k - 3 : 9 - k;
		m = Math.max(-1, Math.min(1, m));
		return Math.floor((lig - a * m) * 255 + 0.5);
	}

	function colour(i) {
		var pal = CONF.palette[FRAMES[frame(i)][1]];
		var h = nameHash(frame(i) === 1 ? '' : FRAMES[frame(i)][0]);
		var hue = pal[0] + (h % 1000) / 1000 * pal[1];
		var sat = pal[2] / 100;
		var lig = (pal[3] + ((h >>> 20) & 0xff) / 255 * 8) / 100;

		return '#' + [0, 8, 4].map(function (n) {
			return (256 + hslChannel(hue, sat, lig, n)).toString(16).slice(1);
		}).join('');
	}

	function num(n) {
		return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
	}

	function pct(n, total) {
		return (100 * n / total).toFixed(2) + '%';
	}

	function boxName(i) {
		return frame(i) === 1 ? '[' + merged(i) + ' merged]' : FRAMES[frame(i)][0];
	}

	function boxY(i) {
		if (CONF.reverse)
			return CONF.top + depth(i) * CONF.box;
		return CONF.height - CONF.bottom - (depth(i) + 1) * CONF.box;
	}

	/* The elements the file came with, and the unzoomed layout */
	function init() {
		var gs, i;

		if (elements)
			return;
		elements = {};
		gs = frames.children;
		for (i = 0; i < gs.length; i++)
			elements[+gs[i].getAttribute('data-i')] = {
				g: gs[i], rect: gs[i].firstChild, text: gs[i].childNodes[1] || null
			};
		origX = new Float64Array(N);
		origW = new Float64Array(N);
		curX = new Float64Array(N);
		curW = new Float64Array(N);
		shown = new Uint8Array(N);
		layout();
		for (i = 0; i < N; i++) {
			curX[i] = origX[i];
			curW[i] = origW[i];
			shown[i] = 1;
		}
	}

	/* x and width of every box: a box starts where its sibling before ended */
	function layout() {
		var next = [CONF.margin], i, d;

		for (i = 0; i < N; i++) {
			d = depth(i);
			origX[i] = next[d];
			origW[i] = samples(i) / CONF.total * FULL;
			next[d] += origW[i];
			next[d + 1] = origX[i];
		}
	}

	function element(i) {
		var e = elements[i], g, r;

		if (e)
			return e;
		g = document.createElementNS(NS, 'g');
		r = document.createElementNS(NS, 'rect');
		g.setAttribute('data-i', i);
		r.setAttribute('y', boxY(i));
		r.setAttribute('height', CONF.box - 1);
		r.setAttribute('fill', colour(i));
		if (frame(i) === 1)
			r.setAttribute('class', 'merged');
		g.appendChild(r);
		frames.appendChild(g);
		e = elements[i] = { g: g, rect: r, text: null };
		return e;
	}

	/* Box @i as an element at @x, @w wide, with as much of its name as fits */
	function place(i, x, w, dim) {
		var e = element(i), fit = Math.floor((w - 6) / CONF.charWidth), name;

		e.g.classList.remove('hidden');
		e.g.classList.toggle('zoomed-parent', dim);
		e.rect.classList.toggle('match', matched[i] === 1);
		e.rect.setAttribute('x', x.toFixed(2));
		e.rect.setAttribute('width', w.toFixed(2));
		if (fit < 3) {
			if (e.text)
				e.text.textContent = '';
			return;
		}
		if (!e.text) {
			e.text = document.createElementNS(NS, 'text');
			e.text.setAttribute('y', (boxY(i) + CONF.box - 4.5).toFixed(1));
			e.g.appendChild(e.text);
		}
		name = boxName(i);
		e.text.setAttribute('x', (x + 3).toFixed(2));
		e.text.textContent = name.length > fit ? name.slice(0, fit - 2) + '..' : name;
	}

	/*
	 * Draw every box where curX/curW/shown say: elements for the wide
	 * ones, one path per class (and one for search matches) for the rest.
	 */
	function draw(dimmed) {
		var paths = {}, runs = {}, j, cls, key, r, p, d;

		function flush(key) {
			var r = runs[key], w;

			if (!r)
				return;
			w = (r.end - r.start).toFixed(2);
			paths[r.cls] = (paths[r.cls] || '') + 'M' + r.start.toFixed(2) + ' ' + r.y +
				'h' + w + 'v' + (CONF.box - 1) + 'h-' + w + 'z';
			delete runs[key];
		}

		for (j = 0; j < N; j++) {
			if (shown[j] && curW[j] >= CONF.sliver) {
				place(j, curX[j], curW[j], dimmed[j] === 1);
				continue;
			}
			if (elements[j])
				elements[j].g.classList.add('hidden');
			if (!shown[j])
				continue;
			/* slivers side by side of one class: one rectangle */
			cls = matched[j] ? 'match' : FRAMES[frame(j)][1];
			key = cls + ':' + depth(j);
			r = runs[key];
			if (r && Math.abs(curX[j] - r.end) < 0.01) {
				r.end = curX[j] + curW[j];
				continue;
			}
			flush(key);
			runs[key] = { cls: cls, y: boxY(j), start: curX[j], end: curX[j] + curW[j] };
		}
		for (key in runs)
			flush(key);
		for (j = 0; j < slivers.children.length; j++) {
			p = slivers.children[j];
			d = p.classList.contains('match') ? paths.match : paths[p.getAttribute('data-c')];
			p.setAttribute('d', d || '');
		}
	}

	function zoom(i) {
		var dimmed = new Uint8Array(N), end = i + 1, scale, j, d;

		init();
		while (end < N && depth(end) > depth(i))
			end++;
		scale = FULL / origW[i];
		for (j = 0; j < N; j++) {
			shown[j] = j >= i && j < end;
			curX[j] = CONF.margin + (origX[j] - origX[i]) * scale;
			curW[j] = origW[j] * scale;
		}
		/* the ancestors: full width, dimmed */
		for (j = i - 1, d = depth(i); j >= 0 && d > 0; j--) {
			if (depth(j) !== d - 1)
				continue;
			d--;
			shown[j] = 1;
			dimmed[j] = 1;
			curX[j] = CONF.margin;
			curW[j] = FULL;
		}
		zoomed = i;
		draw(dimmed);
		unzoomButton.classList.remove('hide');
	}

	function reset() {
		var j;

		init();
		for (j = 0; j < N; j++) {
			shown[j] = 1;
			curX[j] = origX[j];
			curW[j] = origW[j];
		}
		zoomed = null;
		draw(new Uint8Array(N));
		unzoomButton.classList.add('hide');
	}

	function redraw() {
		if (zoomed === null)
			reset();
		else
			zoom(zoomed);
	}

	/* HIDDEN's boxes of one merged box: depth, frame, samples each */
	function readHidden(tokens, d) {
		var out = [], k, m;

		for (k = 1; k < tokens.length; k++) {
			m = /^([0-9a-z]+)(?:\*(\d+))?(\)*)$/.exec(tokens[k]);
			if (!m)
				break;
			out.push(d, parseInt(m[1], 36), m[2] ? +m[2] : 1);
			d += 1 - m[3].length;
		}
		return out;
	}

	/* The boxes merged box @i stands for: depth, frame, samples each */
	function hiddenBoxes(i) {
		if (!hidden) {
			hidden = {};
			HIDDEN.split(';').forEach(function (s) {
				var t = s.split(','), box = +t[0];

				if (s)
					hidden[box] = readHidden(t, depth(box) + 1);
			});
		}
		return hidden[i] || [];
	}

	/* The samples under merged box @i with a frame that matches */
	function hiddenMatched(i, match) {
		var h = hiddenBoxes(i), sum = 0, cover = -1, k;

		for (k = 0; k < h.length; k += 3) {
			if (cover >= 0 && h[k] <= cover)
				cover = -1;
			if (cover < 0 && match(FRAMES[h[k + 1]][0])) {
				sum += h[k + 2];
				cover = h[k];
			}
		}
		return sum;
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
	 * samples they cover: a sample counts once, at its outermost match. A
	 * merged box is searched through the boxes it stands for, and
	 * highlighted when one of them matches: the share is that of the
	 * folded stacks.
	 */
	function search(term) {
		var match = matcher(term), sum = 0, cover = -1, j, n;

		init();
		for (j = 0; j < N; j++) {
			if (cover >= 0 && depth(j) <= cover)
				cover = -1;
			if (frame(j) === 1) {
				n = hiddenMatched(j, match);
				matched[j] = n ? 1 : 0;
				if (cover < 0)
					sum += n;
				continue;
			}
			matched[j] = j > 0 && match(boxName(j)) ? 1 : 0;
			if (matched[j] && cover < 0) {
				sum += samples(j);
				cover = depth(j);
			}
		}
		searching = term;
		redraw();
		matchedText.textContent = 'Matched: ' + pct(sum, CONF.total) + ' (' + num(sum) +
			' of ' + num(CONF.total) + ' samples)';
		searchButton.textContent = 'Reset Search';
		return sum;
	}

	function clearSearch() {
		init();
		matched.fill(0);
		searching = null;
		redraw();
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
	/* Pointing                                                         */
	/* ---------------------------------------------------------------- */

	/* The box drawn under the point (@x, @y) of the image, or null */
	function boxAt(x, y) {
		var d, j;

		init();
		if (CONF.reverse)
			d = Math.floor((y - CONF.top) / CONF.box);
		else
			d = Math.floor((CONF.height - CONF.bottom - y) / CONF.box);
		for (j = 0; j < N; j++)
			if (shown[j] && depth(j) === d && x >= curX[j] && x < curX[j] + curW[j])
				return j;
		return null;
	}

	function tipLines(i) {
		var fr = FRAMES[frame(i)], lines = [boxName(i)], s, e, n;

		if (frame(i) === 1)
			lines.push(merged(i) + ' boxes under ' + (CONF.minPermille / 10).toFixed(1) +
				   '% of the samples, merged');
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
		s = 'samples: ' + num(samples(i)) + ' (' + pct(samples(i), CONF.total) + ')';
		if (zoomed !== null && samples(zoomed) !== CONF.total)
			s += ', ' + pct(samples(i), samples(zoomed)) + ' of the zoomed box';
		lines.push(s);
		for (e = 0; EVENTS.length && e < EVENTS.length; e++) {
			n = EVC[i * EVENTS.length + e];
			if (n)
				lines.push('  ' + EVENTS[e] + ': ' + num(n));
		}
		return lines;
	}

	function showTip(i, pt) {
		var text = tip.lastChild, rect = tip.firstChild;
		var lines = tipLines(i), j, t, x, y, bb, w;

		while (text.firstChild)
			text.removeChild(text.firstChild);
		for (j = 0; j < lines.length; j++) {
			t = document.createElementNS(NS, 'tspan');
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
		x = pt.x + 12;
		y = pt.y + 16;
		if (x + w > CONF.width)
			x = Math.max(0, pt.x - w - 12);
		if (y + bb.height + 8 > CONF.height)
			y = Math.max(0, pt.y - bb.height - 16);
		tip.setAttribute('transform', 'translate(' + x.toFixed(0) + ',' + y.toFixed(0) + ')');
		details.textContent = boxName(i) + ' (' + num(samples(i)) + ' samples, ' +
			pct(samples(i), CONF.total) + ')';
	}

	function hideTip() {
		tip.classList.add('hide');
		details.textContent = ' ';
	}

	/* The point of the image under the mouse */
	function point(evt) {
		var pt = svg.createSVGPoint();

		pt.x = evt.clientX;
		pt.y = evt.clientY;
		return pt.matrixTransform(svg.getScreenCTM().inverse());
	}

	svg.addEventListener('mousemove', function (evt) {
		var pt = point(evt), i = boxAt(pt.x, pt.y);

		if (i === null)
			hideTip();
		else
			showTip(i, pt);
	});
	svg.addEventListener('mouseleave', hideTip);
	svg.addEventListener('click', function (evt) {
		var pt, i;

		if (evt.target === unzoomButton || evt.target === searchButton)
			return;
		pt = point(evt);
		i = boxAt(pt.x, pt.y);
		if (i === 0)
			reset();
		else if (i !== null)
			zoom(i);
		/* the boxes moved under it: the next mouse move shows the new one */
		if (i !== null)
			hideTip();
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
		boxes: function () { return N; }, colour: colour
	};
})();
