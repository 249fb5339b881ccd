/* ir_rbstar explorer page. Reads the JSON of #explore-data; no network. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('explore-data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  var PLACES = 4;
  var M = {};                       // measure label -> index
  D.measures.forEach(function (m, i) { M[m] = i; });
  var S = { a: 0, b: 1, m: M[D.primary], sort: 'query', dir: 1, filter: 'all', search: '',
            depth: Math.min(20, D.depth), q: null, order: [] };
  var Q = {};                       // query id -> index
  D.queries.forEach(function (q, i) { Q[q] = i; });

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function fmt(v) { return (v === null || v === undefined || isNaN(v)) ? '\u2013' : v.toFixed(PLACES); }
  function val(r, label, q) { var i = M[label]; if (i === undefined) return null; var v = D.values[r][i][q]; return v === null ? null : v; }
  function pair(i, j, k, q) {       // k: 0 MED, 1 RBO; A as the run, B as ref (one order where symmetric)
    var key = D.pairs[i + ',' + j] ? i + ',' + j : j + ',' + i;
    if (i === j || !D.pairs[key]) return null;
    var v = D.pairs[key][k][q];
    return v === null ? null : v;
  }
  function numCell(v, cls) {
    var td = el('td', { 'data-value': v === null ? '' : String(v), 'class': cls || null }, fmt(v));
    return td;
  }
  function signClass(v) { return v === null ? null : (v > 0 ? 'pos' : (v < 0 ? 'neg' : null)); }

  // ---------------------------------------------------------------- per-query rows of the overview
  function row(q) {
    var a = S.a, b = S.b, label = D.measures[S.m];
    var va = val(a, label, q), vb = val(b, label, q);
    var r = { q: q, query: D.queries[q], a: va, b: vb, diff: (va === null || vb === null) ? null : va - vb,
              med: pair(a, b, 0, q), rbo: pair(a, b, 1, q) };
    var res = D.residual;
    r.resA = val(a, res.res, q); r.resB = val(b, res.res, q);
    var xa = val(a, res.value, q), xb = val(b, res.value, q);
    r.flipRes = false; r.resLo = null; r.resHi = null;
    if (xa !== null && xb !== null && r.resA !== null && r.resB !== null) {
      r.resLo = xa - (xb + r.resB); r.resHi = (xa + r.resA) - xb;
      r.flipRes = r.resLo < 0 && r.resHi > 0;
    }
    r.flipTie = false; r.tieA = null; r.tieB = null; r.tieLo = null; r.tieHi = null;
    if (D.tie && (label === D.primary)) {
      var mina = val(a, D.tie[0], q), maxa = val(a, D.tie[1], q), minb = val(b, D.tie[0], q), maxb = val(b, D.tie[1], q);
      if (mina !== null && maxa !== null && minb !== null && maxb !== null) {
        r.tieA = [mina, maxa]; r.tieB = [minb, maxb];
        r.tieLo = mina - maxb; r.tieHi = maxa - minb;
        r.flipTie = r.tieLo < 0 && r.tieHi > 0;
      }
    }
    return r;
  }
  var COLUMNS = [
    { key: 'query', title: 'query', cls: 'id' },
    { key: 'qtext', title: 'text', cls: 'txt', when: function () { return !!D.qtext; } },
    { key: 'a', title: 'A' }, { key: 'b', title: 'B' }, { key: 'diff', title: 'A \u2212 B' },
    { key: 'med', title: 'MED', when: function () { return !!D.pair_measures[0]; } },
    { key: 'rbo', title: 'RBO', when: function () { return !!D.pair_measures[1]; } },
    { key: 'resA', title: 'res A' }, { key: 'resB', title: 'res B' },
    { key: 'tieA', title: 'tie range A', when: function () { return !!D.tie; } },
    { key: 'tieB', title: 'tie range B', when: function () { return !!D.tie; } },
    { key: 'flip', title: 'can flip' }
  ];
  function sortValue(r, key) {
    if (key === 'query') return null;
    if (key === 'qtext') return D.qtext ? (D.qtext[r.q] || '') : '';
    if (key === 'tieA') return r.tieA ? r.tieA[1] - r.tieA[0] : null;
    if (key === 'tieB') return r.tieB ? r.tieB[1] - r.tieB[0] : null;
    if (key === 'flip') return (r.flipTie ? 2 : 0) + (r.flipRes ? 1 : 0);
    return r[key];
  }
  function naturalCmp(x, y) {
    var nx = /^\d+$/.test(x), ny = /^\d+$/.test(y);
    if (nx && ny) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  function passes(r) {
    var f = S.filter;
    if (f === 'flip' && !(r.flipTie || r.flipRes)) return false;
    if (f === 'flip-tie' && !r.flipTie) return false;
    if (f === 'flip-res' && !r.flipRes) return false;
    if (f === 'a-better' && !(r.diff !== null && r.diff > 0)) return false;
    if (f === 'b-better' && !(r.diff !== null && r.diff < 0)) return false;
    if (f === 'equal' && !(r.diff === 0)) return false;
    if (S.search) {
      var s = S.search.toLowerCase();
      var t = (r.query + ' ' + (D.qtext ? (D.qtext[r.q] || '') : '')).toLowerCase();
      if (t.indexOf(s) < 0) return false;
    }
    return true;
  }
  function currentRows() {
    var rows = D.queries.map(function (_, q) { return row(q); });
    var key = S.sort, dir = S.dir;
    rows.sort(function (x, y) {
      if (key !== 'query') {
        var vx = sortValue(x, key), vy = sortValue(y, key);
        if (vx === null && vy !== null) return 1;       // missing values last
        if (vy === null && vx !== null) return -1;
        if (vx !== null && vy !== null && vx !== vy) return (vx < vy ? -1 : 1) * dir;
        return naturalCmp(x.query, y.query);
      }
      return naturalCmp(x.query, y.query) * dir;
    });
    return rows;
  }

  function renderMeans() {
    var t = $('means'); t.textContent = '';
    var head = el('tr'); head.appendChild(el('th', { 'class': 'id' }, 'run'));
    D.measures.forEach(function (m) { head.appendChild(el('th', null, m)); });
    var thead = el('thead'); thead.appendChild(head); t.appendChild(thead);
    var tb = el('tbody');
    D.runs.forEach(function (name, r) {
      var tr = el('tr', { 'data-run': name, 'class': r === S.a ? 'run-a' : (r === S.b ? 'run-b' : null) });
      tr.appendChild(el('td', { 'class': 'id' }, name + (r === S.a ? ' (A)' : (r === S.b ? ' (B)' : ''))));
      D.means[r].forEach(function (c, i) {
        var td = el('td', { 'data-measure': D.measures[i], 'data-mean': c[0] === null ? '' : String(c[0]),
                            'data-low': c[1] === null ? '' : String(c[1]), 'data-high': c[2] === null ? '' : String(c[2]),
                            'title': c[3] + ' queries' });
        td.appendChild(document.createTextNode(fmt(c[0]) + ' '));
        td.appendChild(el('span', { 'class': 'ci' }, '[' + fmt(c[1]) + ', ' + fmt(c[2]) + ']'));
        tr.appendChild(td);
      });
      tb.appendChild(tr);
    });
    t.appendChild(tb);
    $('interval-note').textContent = 'Mean over the ' + D.queries.length + ' queries of the qrels and its ' + D.interval +
      ' in brackets; A and B are marked. ' + (D.tie ? 'Tie range: ' + D.tie.join(' to ') + '. ' : '') +
      'Residual: ' + D.residual.res + ' (the true ' + D.residual.value + ' lies in [value, value + residual]).';
  }

  function renderQueries() {
    var t = $('queries'); t.textContent = '';
    var cols = COLUMNS.filter(function (c) { return !c.when || c.when(); });
    var head = el('tr');
    cols.forEach(function (c) {
      var th = el('th', { 'data-col': c.key, 'class': (c.cls || '') + (S.sort === c.key ? (S.dir > 0 ? ' sorted-asc' : ' sorted-desc') : '') }, c.title);
      th.addEventListener('click', function () {
        if (S.sort === c.key) S.dir = -S.dir; else { S.sort = c.key; S.dir = (c.key === 'query' || c.key === 'qtext') ? 1 : -1; }
        renderQueries();
      });
      head.appendChild(th);
    });
    var thead = el('thead'); thead.appendChild(head); t.appendChild(thead);
    var tb = el('tbody');
    var rows = currentRows(), shown = rows.filter(passes);
    S.order = shown.map(function (r) { return r.q; });
    var better = 0, worse = 0, flips = 0;
    rows.forEach(function (r) { if (r.diff > 0) better++; else if (r.diff < 0) worse++; if (r.flipTie || r.flipRes) flips++; });
    shown.forEach(function (r) {
      var tr = el('tr', { 'data-q': r.query, 'data-flip-tie': String(r.flipTie), 'data-flip-res': String(r.flipRes) });
      cols.forEach(function (c) {
        var td;
        if (c.key === 'query') td = el('td', { 'class': 'id', 'data-col': 'query' }, r.query);
        else if (c.key === 'qtext') td = el('td', { 'class': 'txt', 'data-col': 'qtext', 'title': D.qtext[r.q] || '' }, D.qtext[r.q] || '');
        else if (c.key === 'tieA' || c.key === 'tieB') {
          var v = r[c.key];
          td = el('td', { 'data-col': c.key, 'data-low': v ? String(v[0]) : '', 'data-high': v ? String(v[1]) : '',
                          'class': r.flipTie ? 'flip' : null }, v ? '[' + fmt(v[0]) + ', ' + fmt(v[1]) + ']' : '\u2013');
        } else if (c.key === 'flip') {
          td = el('td', { 'data-col': 'flip' });
          if (r.flipTie) td.appendChild(el('span', { 'class': 'tag', 'title': 'A \u2212 B within the tie bounds: [' + fmt(r.tieLo) + ', ' + fmt(r.tieHi) + ']' }, 'ties'));
          if (r.flipRes) td.appendChild(el('span', { 'class': 'tag', 'title': D.residual.value + ' A \u2212 B within the residual bounds: [' + fmt(r.resLo) + ', ' + fmt(r.resHi) + ']' }, 'residual'));
        } else {
          td = numCell(r[c.key], c.key === 'diff' ? signClass(r.diff) : ((c.key === 'resA' || c.key === 'resB') && r.flipRes ? 'flip' : null));
          td.setAttribute('data-col', c.key);
        }
        tr.appendChild(td);
      });
      tr.addEventListener('click', function () { go(r.query); });
      tb.appendChild(tr);
    });
    t.appendChild(tb);
    $('shown').textContent = shown.length + ' of ' + rows.length + ' queries shown';
    var label = D.measures[S.m];
    var mean = 0, n = 0;
    rows.forEach(function (r) { if (r.diff !== null) { mean += r.diff; n++; } });
    $('summary').textContent = label + ': A = ' + D.runs[S.a] + ', B = ' + D.runs[S.b] + '. Mean A \u2212 B = ' +
      fmt(n ? mean / n : null) + '; A better on ' + better + ' queries, B on ' + worse + ', equal on ' + (rows.length - better - worse) +
      '; the sign can flip within the tie or residual bounds on ' + flips + '.';
    $('legend').textContent = 'A, B: ' + label + ' per query. MED: ' + (D.pair_measures[0] || '\u2013') + ', RBO: ' +
      (D.pair_measures[1] || '\u2013') + ' of A with B as ref. res A, res B: ' + D.residual.res +
      '. Tie range: the worst and best value over the orders of tied scores' + (D.tie ? ' (' + D.tie.join(', ') + ')' : '') +
      ', for the primary measure. "can flip": A \u2212 B can take both signs within the tie bounds (ties) or within ' +
      D.residual.value + ' + residual (residual). Click a column to sort, a row to open the query.';
  }

  // ---------------------------------------------------------------- one query
  function gradeBadge(g) {
    if (g === null || g === undefined) return el('span', { 'class': 'grade g-unjudged', 'data-grade': 'unjudged' }, 'unjudged');
    var cls = g >= D.max_rel ? 'g-top' : (g <= 0 ? 'g-0' : 'g-' + Math.min(g, 3));
    return el('span', { 'class': 'grade ' + cls, 'data-grade': String(g) }, 'grade ' + g);
  }
  function tieOf(r, q, pos) {
    var groups = D.ties[r][q];
    for (var i = 0; i < groups.length; i++) {
      var g = groups[i];
      if (pos >= g[0] && pos < g[0] + g[1]) return { id: i + 1, start: g[0], size: g[1] };
      if (g[0] > pos) break;
    }
    return null;
  }
  function residualWeights(r, q, depth) {   // RBP weight (1-p)p^(i-1) of each unjudged position of the shown depth
    var res = D.residual, p = res.p, cut = res.cutoff || Infinity, list = D.rank[r][q], out = [], shown = 0;
    for (var i = 0; i < Math.min(depth, list.length); i++) {
      var w = 0;
      if (i < cut && (D.grades[q][list[i]] === null)) w = (1 - p) * Math.pow(p, i);
      out.push(w); shown += w;
    }
    return { w: out, shown: shown };
  }
  function side(r, other, q, depth, box, cls) {
    box.textContent = '';
    box.className = 'side ' + cls;
    var list = D.rank[r][q], otherList = D.rank[other][q], where = {};
    otherList.forEach(function (d, i) { where[d] = i; });
    box.appendChild(el('h4', null, (cls === 'a' ? 'A: ' : 'B: ') + D.runs[r] + ' (' + D.length[r][q] + ' documents ranked)'));
    var weights = D.residual.rbp ? residualWeights(r, q, depth) : null;
    var maxw = 1 - D.residual.p;
    for (var i = 0; i < Math.min(depth, list.length); i++) {
      var d = list[i], t = tieOf(r, q, i), o = where[d];
      var div = el('div', { 'class': 'doc' + (t ? ' tied' : ''), 'data-doc': D.docs[q][d], 'data-rank': String(i + 1),
                            'data-grade': D.grades[q][d] === null ? 'unjudged' : String(D.grades[q][d]) });
      div.appendChild(el('span', { 'class': 'rank' }, String(i + 1)));
      var id = el('span', { 'class': 'did', 'title': D.text ? 'show the first lines' : D.text_note }, D.docs[q][d]);
      div.appendChild(id);
      var meta = el('span');
      meta.appendChild(gradeBadge(D.grades[q][d]));
      var ax = D.aux ? D.aux[q][d] : null;
      if (ax !== null && ax !== undefined) {
        div.setAttribute('data-aux', String(ax));
        meta.appendChild(el('span', { 'class': 'grade g-aux', 'title': 'auxiliary judgment (shown, not used in the evaluation)' }, 'auxiliary ' + ax));
      }
      if (t) meta.appendChild(el('span', { 'class': 'tie', 'data-tie': String(t.id),
        'title': 'tied scores: ranks ' + (t.start + 1) + '\u2013' + (t.start + t.size) + ' (a group of ' + t.size + ')' },
        ' tie ' + t.id + ' (' + (t.start + 1) + '\u2013' + (t.start + t.size) + ')'));
      div.appendChild(meta);
      var mv;
      if (o === undefined) mv = el('span', { 'class': 'move', 'data-move': 'absent', 'title': 'not in the other run\u2019s top ' + D.depth },
                                   (cls === 'a' ? 'B' : 'A') + ' >' + D.depth);
      else if (o === i) mv = el('span', { 'class': 'move', 'data-move': '0' }, '=');
      else if (cls === 'b') mv = el('span', { 'class': 'move ' + (o > i ? 'up' : 'down'), 'data-move': String(o - i), 'title': 'rank ' + (o + 1) + ' in A' }, (o > i ? '\u2191' : '\u2193') + Math.abs(o - i));
      else mv = el('span', { 'class': 'move', 'data-move': String(o - i), 'title': 'rank ' + (o + 1) + ' in B' }, '\u2192' + (o + 1));
      div.appendChild(mv);
      if (weights && weights.w[i] > 0) div.appendChild(el('span', { 'class': 'resbar', 'style': 'width:' + Math.max(2, 100 * weights.w[i] / maxw).toFixed(1) + '%',
        'title': 'unjudged: residual weight ' + weights.w[i].toFixed(PLACES) }));
      (function (div, d) {
        id.addEventListener('click', function () { toggleText(div, q, d); });
      })(div, d);
      box.appendChild(div);
    }
    if (list.length === 0) box.appendChild(el('p', { 'class': 'note' }, 'this run does not answer the query'));
    return weights;
  }
  function toggleText(div, q, d) {
    var t = div.querySelector('.text');
    if (t) { t.remove(); } else {
      var s = D.text ? D.text[q][d] : null;
      div.appendChild(el('div', { 'class': 'text' }, s === null || s === undefined ? (D.text ? 'no text for this document' : D.text_note) : s));
    }
    drawMoves();
  }
  function drawMoves() {
    var svg = $('moves'), A = $('side-a'), B = $('side-b');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var top = svg.getBoundingClientRect().top, w = svg.getBoundingClientRect().width;
    var ys = {};
    B.querySelectorAll('.doc').forEach(function (e) { var b = e.getBoundingClientRect(); ys[e.getAttribute('data-doc')] = b.top - top + 11; });
    var h = Math.max(A.scrollHeight, B.scrollHeight);
    svg.setAttribute('height', String(h));
    A.querySelectorAll('.doc').forEach(function (e) {
      var doc = e.getAttribute('data-doc'), b = e.getBoundingClientRect(), y1 = b.top - top + 11;
      var g = e.getAttribute('data-grade'), color = g === 'unjudged' ? '#aaa' : (Number(g) > 0 ? '#2e8b3e' : '#c0504d');
      var line = document.createElementNS('http://www.w3.org/2000/svg', 'line');
      line.setAttribute('x1', '0'); line.setAttribute('y1', String(y1)); line.setAttribute('stroke', color);
      line.setAttribute('stroke-width', g === 'unjudged' ? '1' : '1.6');
      if (g === 'unjudged') line.setAttribute('stroke-dasharray', '3,2');
      if (ys[doc] !== undefined) { line.setAttribute('x2', String(w)); line.setAttribute('y2', String(ys[doc])); }
      else { line.setAttribute('x2', '10'); line.setAttribute('y2', String(y1)); }
      svg.appendChild(line);
    });
  }
  function renderQuery() {
    var q = S.q, depth = S.depth;
    $('qtitle').textContent = 'Query ' + D.queries[q] + '  (' + (S.order.indexOf(q) + 1 || '\u2013') + ' of ' + S.order.length + ' shown in the table)';
    $('qtitle').setAttribute('data-q', D.queries[q]);
    $('qtext').textContent = D.qtext ? (D.qtext[q] || '') : '';
    $('depth').value = String(depth); $('depth').max = String(D.depth);
    var t = $('qvalues'); t.textContent = '';
    var head = el('tr'); head.appendChild(el('th', { 'class': 'id' }, 'run'));
    D.measures.forEach(function (m) { head.appendChild(el('th', null, m)); });
    var thead = el('thead'); thead.appendChild(head); t.appendChild(thead);
    var tb = el('tbody');
    var order = [S.a, S.b].concat(D.runs.map(function (_, r) { return r; }).filter(function (r) { return r !== S.a && r !== S.b; }));
    order.forEach(function (r) {
      var tr = el('tr', { 'data-run': D.runs[r], 'class': r === S.a ? 'run-a' : (r === S.b ? 'run-b' : null) });
      tr.appendChild(el('td', { 'class': 'id' }, D.runs[r] + (r === S.a ? ' (A)' : (r === S.b ? ' (B)' : ''))));
      D.measures.forEach(function (m, i) { var td = numCell(D.values[r][i][q]); td.setAttribute('data-measure', m); tr.appendChild(td); });
      tb.appendChild(tr);
    });
    t.appendChild(tb);
    var pl = $('pairline'); pl.textContent = '';
    [0, 1].forEach(function (k) {
      if (!D.pair_measures[k]) return;
      var v = pair(S.a, S.b, k, q);
      var s = el('span', { 'data-pair': D.pair_measures[k], 'data-value': v === null ? '' : String(v) }, D.pair_measures[k] + ' of A against B = ' + fmt(v) + '   ');
      pl.appendChild(s);
    });
    var wa = side(S.a, S.b, q, depth, $('side-a'), 'a');
    var wb = side(S.b, S.a, q, depth, $('side-b'), 'b');
    var res = D.residual, note = res.res + ': A ' + fmt(val(S.a, res.res, q)) + ', B ' + fmt(val(S.b, res.res, q)) + '.';
    if (wa && wb) {
      note += ' Unjudged documents in the shown top ' + depth + ' carry A ' + fmt(wa.shown) + ', B ' + fmt(wb.shown) +
        ' of it (the bar under a document is its weight (1 \u2212 p)p^(rank \u2212 1)); the rest is ' +
        (res.cutoff ? (res.cutoff > depth ? 'deeper (to the cutoff ' + res.cutoff + ') and ' : '') + 'the tail p^' + res.cutoff + ' past the cutoff'
                    : 'deeper and the tail past the end of the run') + '.';
    }
    $('residual-note').textContent = note;
    $('text-note').textContent = D.text ? D.text_note + ' Click a document id for its first lines.' : D.text_note;
    drawMoves();
  }

  // ---------------------------------------------------------------- navigation
  function parseHash() {
    var h = location.hash.replace(/^#/, ''), out = {};
    h.split('&').forEach(function (part) {
      if (!part) return;
      var i = part.indexOf('=');
      if (i > 0) out[decodeURIComponent(part.slice(0, i))] = decodeURIComponent(part.slice(i + 1));
    });
    return out;
  }
  function go(qid) { location.hash = 'q=' + encodeURIComponent(qid); }
  function route() {
    var h = parseHash();
    if (h.a !== undefined && D.runs.indexOf(h.a) >= 0) S.a = D.runs.indexOf(h.a);
    if (h.b !== undefined && D.runs.indexOf(h.b) >= 0) S.b = D.runs.indexOf(h.b);
    $('run-a').value = String(S.a); $('run-b').value = String(S.b);
    if (h.q !== undefined && Q[h.q] !== undefined) {
      S.q = Q[h.q];
      if (!S.order.length) renderQueries();
      $('overview').hidden = true; $('query').hidden = false;
      renderQuery();
      window.scrollTo(0, 0);
    } else {
      S.q = null;
      $('query').hidden = true; $('overview').hidden = false;
      renderMeans(); renderQueries();
    }
  }
  function step(k) {
    if (S.q === null) { if (S.order.length) go(D.queries[S.order[k > 0 ? 0 : S.order.length - 1]]); return; }
    var order = S.order.length ? S.order : D.queries.map(function (_, i) { return i; });
    var i = order.indexOf(S.q);
    var j = i < 0 ? 0 : (i + k + order.length) % order.length;
    go(D.queries[order[j]]);
  }
  function setup() {
    $('title').textContent = D.title;
    document.title = D.title;
    ['run-a', 'run-b'].forEach(function (id, k) {
      var s = $(id);
      D.runs.forEach(function (name, r) { s.appendChild(el('option', { value: String(r) }, name)); });
      s.value = String(k === 0 ? S.a : S.b);
      s.addEventListener('change', function () {
        if (k === 0) S.a = Number(s.value); else S.b = Number(s.value);
        if (S.q === null) { renderMeans(); renderQueries(); } else { renderQueries(); renderQuery(); }
      });
    });
    var ms = $('measure');
    D.asked.forEach(function (m) { ms.appendChild(el('option', { value: String(M[m]) }, m)); });
    ms.value = String(S.m);
    ms.addEventListener('change', function () { S.m = Number(ms.value); renderQueries(); });
    $('filter').addEventListener('change', function () { S.filter = $('filter').value; renderQueries(); });
    $('search').addEventListener('input', function () { S.search = $('search').value.trim(); renderQueries(); });
    $('prev').addEventListener('click', function () { step(-1); });
    $('next').addEventListener('click', function () { step(1); });
    $('depth').addEventListener('change', function () {
      if ($('depth').value.trim() === '') return;          // being edited
      var v = Math.round(Number($('depth').value));
      S.depth = Math.max(1, Math.min(D.depth, isNaN(v) ? S.depth : v));
      if (S.q !== null) renderQuery();
    });
    document.addEventListener('keydown', function (e) {
      var tag = (e.target && e.target.tagName) || '';
      if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'j' || e.key === 'ArrowRight') { step(1); e.preventDefault(); }
      else if (e.key === 'k' || e.key === 'ArrowLeft') { step(-1); e.preventDefault(); }
      else if (e.key === 'Escape' || e.key === 'u') { location.hash = ''; e.preventDefault(); }
    });
    window.addEventListener('hashchange', route);
    window.addEventListener('resize', function () { if (S.q !== null) drawMoves(); });
    renderQueries();
    route();
    document.body.setAttribute('data-ready', 'true');
  }
  setup();
})();
