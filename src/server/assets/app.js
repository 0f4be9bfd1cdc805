/* zkpipe dashboard: polls GET /v1/status, /v1/status/history,
 * /v1/jobs?limit=50 and /v1/fleet every second and draws them; no
 * libraries, no build.
 *
 * Every figure is shown in an element with data-field="<name>" whose
 * data-value holds the raw number (its text may be humanised). Names:
 *   <field of /v1/status>          budget, tracked, jobs.done, workers.synth …
 *   class.<class>.<count|bytes|peak>          from status.classes
 *   stage.<stage>.<partitions|count|bytes|max_partitions>  from status.stages
 *   history.samples                the number of samples charted
 *   job.<id>.<state|done|partitions|priority>  from /v1/jobs
 *   timing.<id>.<partition>.<stage|total>      from /v1/jobs/<id>
 *   fleet.<lease|queue.*>, fleet.node.<id>.<claimed|proofs|heartbeat_age|tracked|budget>
 *                                  from /v1/fleet
 * The JSON last rendered is kept in window.__lastStatus, __lastHistory,
 * __lastJobs, __lastFleet and __lastJob (the opened job), and body.dataset.updated is the
 * uptime of the status last rendered. */
(function () {
  'use strict';

  /* the engine's buffer classes, in its order (zp_buffer_class) */
  var CLASSES = ['key', 'matrices', 'witness', 'abc', 'msm', 'witgen', 'intake', 'stream'];
  var STAGES = ['synth', 'wait_prove', 'prove', 'wait_final', 'final', 'dealloc'];
  var TIMING_STAGES = ['queued', 'synth', 'wait_prove', 'prove', 'wait_final', 'final'];
  var COLORS = { key: '#5794f2', matrices: '#b877d9', witness: '#fade2a', abc: '#ff9830', msm: '#73bf69', witgen: '#ff9ec9', intake: '#e0b400', stream: '#2fb5c9' };
  var EXTRA_COLORS = ['#8ab8ff', '#ff7383', '#5ad8c5', '#c8f2c2'];
  var LINES = { rss: '#f2f2f2', reserved: '#8ab8ff', budget: '#f2495c' };
  var PERIOD = 1000, TIMEOUT = 4000;

  var $ = function (id) { return document.getElementById(id); };
  var state = {
    token: null, status: null, history: null, jobs: null, job: null,
    selected: null, scale: 'auto', hoverX: null, lastOk: 0, failing: null,
    historyAt: 0, stageKeys: '', classKeys: ''
  };

  /* ---- formatting ---- */
  function fmtBytes(n) {
    if (typeof n !== 'number' || !isFinite(n)) return '–';
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], i = 0, v = Math.abs(n);
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    var s = i === 0 ? String(v) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
    return (n < 0 ? '-' : '') + s + ' ' + u[i];
  }
  function fmtInt(n) { return typeof n === 'number' ? n.toLocaleString('en-US') : '–'; }
  function fmtDur(s) {
    if (typeof s !== 'number' || !isFinite(s)) return '–';
    if (s < 0) s = 0;
    if (s < 1) return (s * 1000).toFixed(0) + ' ms';
    if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + ' s';
    var m = Math.floor(s / 60), h = Math.floor(m / 60), d = Math.floor(h / 24);
    if (d > 0) return d + 'd ' + (h % 24) + 'h';
    if (h > 0) return h + 'h ' + pad(m % 60) + 'm';
    return m + 'm ' + pad(Math.floor(s % 60)) + 's';
  }
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function clock(unix) {
    var d = new Date(unix * 1000);
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function get(o, path) {
    var parts = path.split('.');
    for (var i = 0; i < parts.length; i++) { if (o == null) return undefined; o = o[parts[i]]; }
    return o;
  }

  /* Sets every element showing `field`: data-value raw, text humanised. */
  function setField(field, value, text) {
    var els = document.querySelectorAll('[data-field="' + field + '"]');
    var raw = value === undefined || value === null ? '' : String(value);
    for (var i = 0; i < els.length; i++) {
      els[i].setAttribute('data-value', raw);
      els[i].textContent = value === undefined || value === null ? '–' : text;
      els[i].title = raw;
    }
  }
  function fieldAttr(field, value) {
    var raw = value === undefined || value === null ? '' : String(value);
    return 'data-field="' + esc(field) + '" data-value="' + esc(raw) + '" title="' + esc(raw) + '"';
  }
  function keysOf(obj, known) {
    var out = [], k;
    obj = obj || {};
    if (obj.keys !== undefined && known === STAGES) out.push('keys');
    for (k = 0; k < known.length; k++) if (obj[known[k]] !== undefined) out.push(known[k]);
    for (k in obj) if (out.indexOf(k) < 0) out.push(k);
    return out;
  }
  function colorOf(cls, i) { return COLORS[cls] || EXTRA_COLORS[i % EXTRA_COLORS.length]; }

  /* ---- fetching ---- */
  function readToken() {
    var m = /(?:^#|[#&])token=([^&]*)/.exec(location.hash);
    state.token = m ? decodeURIComponent(m[1]) : null;
  }
  function fetchJson(path) {
    var ctl = typeof AbortController === 'function' ? new AbortController() : null;
    var timer = setTimeout(function () { if (ctl) ctl.abort(); }, TIMEOUT);
    var headers = { 'Accept': 'application/json' };
    if (state.token) headers['Authorization'] = 'Bearer ' + state.token;
    return fetch(path, { headers: headers, cache: 'no-store', signal: ctl ? ctl.signal : undefined })
      .then(function (r) {
        return r.text().then(function (text) {
          var body = null;
          try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
          if (!r.ok) {
            var msg = body && body.error ? body.error.code + ': ' + body.error.message : text.slice(0, 120);
            var err = new Error('GET /' + path + ' → ' + r.status + ' ' + msg);
            err.status = r.status;
            throw err;
          }
          if (body === null) throw new Error('GET /' + path + ': the answer is not JSON');
          return body;
        });
      }, function (e) {
        throw new Error('GET /' + path + ': ' + (e && e.name === 'AbortError' ? 'no answer in ' + TIMEOUT / 1000 + ' s' : 'cannot connect'));
      })
      .finally(function () { clearTimeout(timer); });
  }

  function tick() {
    var started = Date.now();
    var reqs = [fetchJson('v1/status'), fetchJson('v1/status/history'), fetchJson('v1/jobs?limit=50'),
                fetchJson('v1/fleet')];
    if (state.selected !== null) reqs.push(fetchJson('v1/jobs/' + state.selected));
    Promise.allSettled(reqs).then(function (res) {
      var errors = [];
      res.forEach(function (r) { if (r.status === 'rejected') errors.push(r.reason); });
      try {
        if (res[0].status === 'fulfilled') renderStatus(res[0].value);
        if (res[1].status === 'fulfilled') { state.historyAt = Date.now(); renderHistory(res[1].value); }
        if (res[2].status === 'fulfilled') renderJobs(res[2].value);
        if (res[3].status === 'fulfilled') renderFleet(res[3].value);
        if (res[4] && res[4].status === 'fulfilled') renderJobDetail(res[4].value);
      } catch (e) {
        errors.push(new Error('cannot draw the answer: ' + e.message));
        if (window.console) console.error(e);
      }
      // A job that is gone (expired) is not a daemon failure.
      if (res[4] && res[4].status === 'rejected' && res[4].reason.status === 404) {
        errors.splice(errors.indexOf(res[4].reason), 1);
        state.selected = null;
        removeDetail();
      }
      showErrors(errors);
    }).finally(function () {
      setTimeout(tick, Math.max(50, PERIOD - (Date.now() - started)));
    });
  }

  function showErrors(errors) {
    var banner = $('banner'), dot = $('live-dot'), live = $('live-text');
    if (!errors.length) {
      state.lastOk = Date.now();
      state.failing = null;
      banner.hidden = true;
      document.body.classList.remove('stale');
      dot.className = 'dot ok';
      live.textContent = 'live';
      return;
    }
    if (!state.failing) state.failing = Date.now();
    var unauthorized = errors.some(function (e) { return e.status === 401; });
    var text = unauthorized
      ? 'Unauthorized: this daemon needs a token. Open the page as …/#token=YOUR_TOKEN. (' + errors[0].message + ')'
      : 'Cannot reach the daemon: ' + errors[0].message + (errors.length > 1 ? ' (and ' + (errors.length - 1) + ' more)' : '');
    text += ' — retrying every second';
    if (state.lastOk) text += '; last good update ' + fmtDur((Date.now() - state.lastOk) / 1000) + ' ago';
    banner.textContent = text;
    banner.hidden = false;
    document.body.classList.add('stale');
    dot.className = 'dot bad';
    live.textContent = unauthorized ? 'unauthorized' : 'down';
  }

  /* ---- status: tiles, pipeline, classes, gauge ---- */
  function renderStatus(st) {
    window.__lastStatus = st;
    state.status = st;
    var simple = ['budget', 'buffer_budget', 'reserved', 'peak_reserved', 'tracked', 'peak_tracked', 'rss', 'peak_rss', 'baseline_rss'];
    simple.forEach(function (f) { setField(f, st[f], fmtBytes(st[f])); });
    setField('version', st.version, 'v' + st.version);
    setField('uptime', st.uptime, fmtDur(st.uptime));
    ['proofs', 'partitions_failed', 'keys_loaded', 'admission_waiting'].forEach(function (f) { setField(f, st[f], fmtInt(st[f])); });
    ['queued', 'running', 'done', 'failed', 'cancelled'].forEach(function (s) { setField('jobs.' + s, get(st, 'jobs.' + s), fmtInt(get(st, 'jobs.' + s))); });
    $('tile-waiting').classList.toggle('alert', st.admission_waiting > 0);
    var forBuffers = st.buffer_budget || st.budget;
    $('budget-use').textContent = forBuffers ? (100 * st.reserved / forBuffers).toFixed(1) + '%' : '–';
    $('updated-at').textContent = clock(Date.now() / 1000);
    $('started-at').textContent = 'since ' + clock(Date.now() / 1000 - st.uptime);
    renderPipeline(st);
    renderClasses(st);
    renderGauge(st);
    document.body.dataset.updated = String(st.uptime);
  }

  function renderPipeline(st) {
    var stages = keysOf(st.stages, STAGES), box = $('pipeline');
    if (stages.join() !== state.stageKeys) {
      state.stageKeys = stages.join();
      var html = '<div class="stage admit" id="st-admit"><div class="name">admission</div>' +
        '<div class="parts"><span data-field="admission_waiting" data-value=""></span></div>' +
        '<div class="maxp">waiting</div></div>';
      stages.forEach(function (s) {
        html += '<div class="arrow">›</div><div class="stage' + (s === 'keys' ? ' keys' : '') + '" id="st-' + esc(s) + '">' +
          '<div class="name"><span>' + esc(s) + '</span><span class="cap" id="cap-' + esc(s) + '"></span></div>' +
          '<div class="parts"><span ' + fieldAttr('stage.' + s + '.partitions', '') + '>–</span><small>partitions</small></div>' +
          '<div class="bytes"><span ' + fieldAttr('stage.' + s + '.bytes', '') + '>–</span>' +
          '<span><span ' + fieldAttr('stage.' + s + '.count', '') + '>–</span> buf</span></div>' +
          '<div class="maxp">max <span ' + fieldAttr('stage.' + s + '.max_partitions', '') + '>–</span> partitions</div>' +
          '<div class="fill" id="fill-' + esc(s) + '"></div></div>';
      });
      box.innerHTML = html;
    }
    setField('admission_waiting', st.admission_waiting, fmtInt(st.admission_waiting));
    $('st-admit').classList.toggle('waiting', st.admission_waiting > 0);
    var w = st.workers || {};
    var caps = { synth: [w.synth, 'workers', 'synth'], prove: [w.prove, 'workers', 'prove'], final: [w.finalize, 'workers', 'finalize'],
      wait_prove: [w.queue, 'queue', 'queue'], wait_final: [w.queue, 'queue', 'queue'] };
    stages.forEach(function (s) {
      var v = st.stages[s] || {};
      ['partitions', 'count', 'max_partitions'].forEach(function (f) { setField('stage.' + s + '.' + f, v[f], fmtInt(v[f])); });
      setField('stage.' + s + '.bytes', v.bytes, fmtBytes(v.bytes));
      var el = $('st-' + s), cap = caps[s], full = false;
      if (cap && typeof cap[0] === 'number') {
        full = v.partitions >= cap[0] && cap[1] === 'queue';
        var wf = '<span ' + fieldAttr('workers.' + cap[2], cap[0]) + '>' + esc(cap[0]) + '</span>';
        $('cap-' + s).innerHTML = cap[1] === 'queue' ? 'queue ' + esc(v.partitions) + '/' + wf : wf + ' worker' + (cap[0] === 1 ? '' : 's');
      }
      el.classList.toggle('busy', v.partitions > 0);
      el.classList.toggle('full', full);
      el.title = s + ': ' + v.partitions + ' partitions hold ' + fmtBytes(v.bytes) + ' in ' + v.count + ' buffers' + (full ? ' — the queue is full (back-pressure)' : '');
      $('fill-' + s).style.width = (st.tracked > 0 ? Math.min(100, 100 * (v.bytes || 0) / st.tracked) : 0) + '%';
    });
  }

  function renderClasses(st) {
    var classes = keysOf(st.classes, CLASSES), body = $('classes-body');
    if (classes.join() !== state.classKeys) {
      state.classKeys = classes.join();
      body.innerHTML = classes.map(function (c, i) {
        return '<tr><td><i class="swatch" style="background:' + colorOf(c, i) + '"></i>' + esc(c) + '</td>' +
          '<td class="n" ' + fieldAttr('class.' + c + '.count', '') + '>–</td>' +
          '<td class="n" ' + fieldAttr('class.' + c + '.bytes', '') + '>–</td>' +
          '<td class="n" ' + fieldAttr('class.' + c + '.peak', '') + '>–</td>' +
          '<td class="share"><div class="bar"><div id="cshare-' + esc(c) + '" style="background:' + colorOf(c, i) + '"></div></div></td></tr>';
      }).join('');
    }
    var total = 0, peakMax = 0;
    classes.forEach(function (c) { var v = st.classes[c] || {}; total += v.count || 0; peakMax = Math.max(peakMax, v.peak || 0, v.bytes || 0); });
    classes.forEach(function (c) {
      var v = st.classes[c] || {};
      setField('class.' + c + '.count', v.count, fmtInt(v.count));
      setField('class.' + c + '.bytes', v.bytes, fmtBytes(v.bytes));
      setField('class.' + c + '.peak', v.peak, fmtBytes(v.peak));
      var el = $('cshare-' + c);
      el.style.width = (peakMax > 0 ? 100 * (v.bytes || 0) / peakMax : 0) + '%';
      el.parentNode.title = 'now ' + fmtBytes(v.bytes) + ' of peak ' + fmtBytes(v.peak);
    });
    $('classes-count').textContent = fmtInt(total);
  }

  function renderGauge(st) {
    var b = st.budget || 1, html = '', x = 0;
    keysOf(st.classes, CLASSES).forEach(function (c, i) {
      var w = 100 * ((st.classes[c] || {}).bytes || 0) / b;
      if (w > 0) html += '<div class="seg-c" style="left:' + x + '%;width:' + w + '%;background:' + colorOf(c, i) + '" title="' + esc(c) + ' ' + fmtBytes(st.classes[c].bytes) + '"></div>';
      x += w;
    });
    var r = Math.min(100, 100 * (st.reserved || 0) / b);
    html = '<div class="res" style="left:0;width:' + r + '%" title="reserved ' + fmtBytes(st.reserved) + '"></div>' + html;
    html += '<div class="rssm" style="left:calc(' + Math.min(100, 100 * (st.rss || 0) / b) + '% - 1px)" title="RSS ' + fmtBytes(st.rss) + '"></div>';
    $('gauge-bar').innerHTML = html;
    $('gauge-text').textContent = 'tracked ' + fmtBytes(st.tracked) + ' · reserved ' + fmtBytes(st.reserved) + ' · RSS ' + fmtBytes(st.rss);
    $('gauge-budget').textContent = fmtBytes(st.budget);
    $('gauge').classList.toggle('over', st.rss > st.budget);
  }

  /* ---- history chart ---- */
  function renderHistory(h) {
    window.__lastHistory = h;
    state.history = h;
    var samples = (h && h.samples) || [];
    setField('history.samples', samples.length, String(samples.length));
    drawChart();
  }

  function niceStep(raw) {
    if (raw <= 0) return 1;
    var unit = Math.pow(1024, Math.max(0, Math.floor(Math.log(raw) / Math.log(1024))));
    var m = raw / unit, steps = [1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];
    for (var i = 0; i < steps.length; i++) if (steps[i] >= m) return steps[i] * unit;
    return 1024 * unit;
  }

  function drawChart() {
    var box = $('chart'), h = state.history, samples = (h && h.samples) || [];
    if (!samples.length) { box.innerHTML = '<div class="empty">waiting for samples…</div>'; return; }
    var W = Math.max(200, box.clientWidth), H = Math.max(120, box.clientHeight);
    var ml = 62, mr = 10, mt = 12, mb = 20, pw = W - ml - mr, ph = H - mt - mb;
    var classes = [];
    samples.forEach(function (s) { for (var c in (s.classes || {})) if (classes.indexOf(c) < 0) classes.push(c); });
    classes = keysOf(classes.reduce(function (o, c) { o[c] = 1; return o; }, {}), CLASSES);
    var t1 = samples[samples.length - 1].t, t0 = samples[0].t;
    var span = Math.min(600, Math.max(60, t1 - t0));
    var tStart = t1 - span;
    var maxData = 0, budget = 0;
    samples.forEach(function (s) {
      var sum = 0;
      classes.forEach(function (c) { sum += (s.classes && s.classes[c]) || 0; });
      maxData = Math.max(maxData, s.rss || 0, s.reserved || 0, s.tracked || 0, sum);
      budget = Math.max(budget, s.budget || 0);
    });
    var mode = state.scale === 'auto' ? (budget && maxData >= 0.3 * budget ? 'budget' : 'data') : state.scale;
    var ymax = mode === 'budget' ? Math.max(budget, maxData) * 1.04 : maxData * 1.12;
    if (!(ymax > 0)) ymax = 1024 * 1024;
    var step = niceStep(ymax / 4);
    ymax = Math.ceil(ymax / step) * step;
    var X = function (t) { return ml + pw * (t - tStart) / span; };
    var Y = function (v) { return mt + ph * (1 - Math.min(v, ymax * 1.02) / ymax); };
    var vis = samples.filter(function (s) { return s.t >= tStart; });
    var out = [];
    out.push('<svg xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">');
    // grid and axes
    for (var v = 0; v <= ymax + 1; v += step) {
      out.push('<line class="grid" x1="' + ml + '" x2="' + (W - mr) + '" y1="' + Y(v).toFixed(1) + '" y2="' + Y(v).toFixed(1) + '"/>');
      out.push('<text x="' + (ml - 6) + '" y="' + (Y(v) + 3).toFixed(1) + '" text-anchor="end">' + fmtBytes(v) + '</text>');
    }
    var tstep = span > 300 ? 60 : span > 120 ? 30 : 15;
    for (var tt = t1; tt >= tStart - 0.01; tt -= tstep) {
      var ago = Math.round(t1 - tt);
      out.push('<line class="grid" x1="' + X(tt).toFixed(1) + '" x2="' + X(tt).toFixed(1) + '" y1="' + mt + '" y2="' + (mt + ph) + '"/>');
      out.push('<text x="' + X(tt).toFixed(1) + '" y="' + (H - 5) + '" text-anchor="' + (ago === 0 ? 'end' : 'middle') + '">' +
        (ago === 0 ? 'now' : ago % 60 === 0 ? '−' + ago / 60 + 'm' : ago > 60 ? '−' + Math.floor(ago / 60) + 'm' + pad(ago % 60) + 's' : '−' + ago + 's') + '</text>');
    }
    // stacked areas per class (tracked, split)
    var base = vis.map(function () { return 0; });
    classes.forEach(function (c, ci) {
      var top = vis.map(function (s, i) { return base[i] + ((s.classes && s.classes[c]) || 0); });
      var d = 'M' + vis.map(function (s, i) { return X(s.t).toFixed(1) + ',' + Y(top[i]).toFixed(1); }).join('L');
      for (var i = vis.length - 1; i >= 0; i--) d += 'L' + X(vis[i].t).toFixed(1) + ',' + Y(base[i]).toFixed(1);
      out.push('<path class="area area-' + esc(c) + '" d="' + d + 'Z" fill="' + colorOf(c, ci) + '" fill-opacity=".55" stroke="' + colorOf(c, ci) + '" stroke-width="1"/>');
      base = top;
    });
    function line(key, color, dash, width) {
      var d = 'M' + vis.map(function (s) { return X(s.t).toFixed(1) + ',' + Y(s[key] || 0).toFixed(1); }).join('L');
      out.push('<path class="line line-' + key + '" d="' + d + '" fill="none" stroke="' + color + '" stroke-width="' + width + '"' + (dash ? ' stroke-dasharray="' + dash + '"' : '') + '/>');
    }
    line('reserved', LINES.reserved, '4 3', 1.5);
    line('rss', LINES.rss, '', 1.5);
    if (budget <= ymax) line('budget', LINES.budget, '6 4', 1.5);
    else out.push('<text class="offscale" x="' + (W - mr - 4) + '" y="' + (mt + 10) + '" text-anchor="end" style="fill:' + LINES.budget + '">budget ' + fmtBytes(budget) + ' ↑ (above the scale)</text>');
    out.push('<line class="axis" x1="' + ml + '" x2="' + ml + '" y1="' + mt + '" y2="' + (mt + ph) + '"/>');
    // hover cursor
    var hs = null;
    if (state.hoverX !== null && state.hoverX >= ml && state.hoverX <= W - mr) {
      var th = tStart + (state.hoverX - ml) / pw * span, best = Infinity;
      vis.forEach(function (s) { if (Math.abs(s.t - th) < best) { best = Math.abs(s.t - th); hs = s; } });
      if (hs) out.push('<line x1="' + X(hs.t).toFixed(1) + '" x2="' + X(hs.t).toFixed(1) + '" y1="' + mt + '" y2="' + (mt + ph) + '" stroke="#9aa" stroke-width="1" stroke-dasharray="2 2"/>');
    }
    out.push('<rect id="chart-hit" x="' + ml + '" y="' + mt + '" width="' + pw + '" height="' + ph + '" fill="transparent"/>');
    out.push('</svg>');
    box.innerHTML = out.join('');
    $('chart-span').textContent = 'last ' + fmtDur(span) + ' · ' + (mode === 'budget' ? 'scaled to the budget' : 'scaled to the data');
    var last = samples[samples.length - 1];
    $('chart-legend').innerHTML = classes.map(function (c, i) {
      return '<span><i style="background:' + colorOf(c, i) + '"></i>' + esc(c) + '<b>' + fmtBytes((last.classes || {})[c] || 0) + '</b></span>';
    }).join('') +
      '<span><i class="line" style="background:' + LINES.rss + '"></i>RSS<b>' + fmtBytes(last.rss) + '</b></span>' +
      '<span><i class="dash" style="border-color:' + LINES.reserved + '"></i>reserved<b>' + fmtBytes(last.reserved) + '</b></span>' +
      '<span><i class="dash" style="border-color:' + LINES.budget + '"></i>budget<b>' + fmtBytes(last.budget) + '</b></span>';
    showTooltip(hs, classes);
  }

  function showTooltip(s, classes) {
    var tip = $('tooltip');
    if (!s || state.hoverX === null) { tip.hidden = true; return; }
    var rows = [['RSS', s.rss], ['reserved', s.reserved], ['tracked', s.tracked]];
    classes.slice().reverse().forEach(function (c) { rows.push(['  ' + c, (s.classes || {})[c] || 0]); });
    rows.push(['budget', s.budget]);
    tip.innerHTML = '<div class="tt-t">' + clock(s.t) + '</div>' + rows.map(function (r) {
      return '<div class="tt-r"><span>' + esc(r[0]) + '</span><b>' + fmtBytes(r[1]) + '</b></div>';
    }).join('');
    tip.hidden = false;
    var rect = $('chart').getBoundingClientRect();
    var left = rect.left + state.hoverX + 14;
    if (left + 190 > window.innerWidth) left = rect.left + state.hoverX - 200;
    tip.style.left = left + 'px';
    tip.style.top = (rect.top + 10) + 'px';
  }

  /* ---- jobs ---- */
  function serverNow() {
    var h = state.history && state.history.samples;
    if (h && h.length) return h[h.length - 1].t + (Date.now() - state.historyAt) / 1000;
    return Date.now() / 1000;
  }

  /* ---- the fleet: every daemon of the store ---- */
  function renderFleet(f) {
    window.__lastFleet = f;
    $('fleet-store').textContent = f.store + (f.shared ? ' (shared)' : '');
    setField('fleet.lease', f.lease, String(f.lease));
    var q = f.queue || {};
    setField('fleet.queue.queued_partitions', q.queued_partitions, String(q.queued_partitions));
    setField('fleet.queue.running_partitions', q.running_partitions, String(q.running_partitions));
    var nodes = f.daemons || [], body = $('fleet-body');
    if (!nodes.length) {
      body.innerHTML = '<tr class="none"><td colspan="7">no daemon has joined the store</td></tr>';
      return;
    }
    body.innerHTML = nodes.map(function (d) {
      var k = 'fleet.node.' + d.id + '.', stale = d.heartbeat_age > (f.lease || 30);
      return '<tr class="' + (d.id === f.node ? 'me' : '') + (stale ? ' stale' : '') + '"><td>' + esc(d.id) +
        (d.id === f.node ? ' <span class="hint">(this one)</span>' : '') + '</td><td>' + esc(d.host) + '</td>' +
        '<td class="n" ' + fieldAttr(k + 'heartbeat_age', d.heartbeat_age) + '>' + fmtDur(d.heartbeat_age) + ' ago</td>' +
        '<td class="n" ' + fieldAttr(k + 'claimed', d.claimed) + '>' + esc(d.claimed) + '</td>' +
        '<td class="n" ' + fieldAttr(k + 'proofs', d.proofs) + '>' + esc(d.proofs) + '</td>' +
        '<td class="n" ' + fieldAttr(k + 'tracked', d.tracked) + '>' + fmtBytes(d.tracked) + '</td>' +
        '<td class="n" ' + fieldAttr(k + 'budget', d.budget) + '>' + fmtBytes(d.budget) + '</td></tr>';
    }).join('');
  }

  function renderJobs(j) {
    window.__lastJobs = j;
    state.jobs = j;
    var jobs = (j && j.jobs) || [], body = $('jobs-body'), now = serverNow();
    if (!jobs.length) {
      body.innerHTML = '<tr class="none"><td colspan="8">no jobs yet — submit one with POST /v1/jobs</td></tr>';
      return;
    }
    var html = jobs.map(function (job) {
      var id = job.id, ended = job.finished !== null && job.finished !== undefined;
      var dur = (ended ? job.finished : now) - job.submitted;
      var pct = job.partitions ? 100 * job.done / job.partitions : 0;
      return '<tr class="job' + (state.selected === id ? ' sel' : '') + '" data-job-id="' + esc(id) + '">' +
        '<td class="n id">' + esc(id) + '</td><td>' + esc(job.key) + '</td>' +
        '<td class="n" ' + fieldAttr('job.' + id + '.priority', job.priority) + '>' + esc(job.priority) + '</td>' +
        '<td><span class="state ' + esc(job.state) + '" ' + fieldAttr('job.' + id + '.state', job.state) + '>' + esc(job.state) + '</span>' +
        (job.error ? '<span class="errtext" title="' + esc(job.error) + '">' + esc(job.error.slice(0, 60)) + '</span>' : '') + '</td>' +
        '<td><div class="prog ' + esc(job.state) + '"><div class="bar"><div style="width:' + pct + '%"></div></div>' +
        '<span><span ' + fieldAttr('job.' + id + '.done', job.done) + '>' + esc(job.done) + '</span>/' +
        '<span ' + fieldAttr('job.' + id + '.partitions', job.partitions) + '>' + esc(job.partitions) + '</span></span></div></td>' +
        '<td>' + clock(job.submitted) + ' <span class="hint">(' + fmtDur(now - job.submitted) + ' ago)</span></td>' +
        '<td class="n' + (ended ? '' : ' ongoing') + '" title="' + (ended ? 'submitted to finished' : 'running for') + '">' + fmtDur(dur) + '</td>' +
        '<td class="rid" title="' + esc(job.request_id || '') + '">' + esc(job.request_id || '') + '</td></tr>' +
        (state.selected === id ? '<tr class="detail" id="detail-row"><td colspan="8">' + detailHtml(id) + '</td></tr>' : '');
    }).join('');
    var scroller = body.closest('.jobs-scroll'), top = scroller.scrollTop;
    body.innerHTML = html;
    scroller.scrollTop = top;
    // the selected job fell off the list: drop its detail
    if (state.selected !== null && !jobs.some(function (x) { return x.id === state.selected; })) { state.selected = null; state.job = null; }
  }

  function detailHtml(id) {
    var job = state.job;
    if (!job || job.id !== id) return '<span class="hint">loading job ' + esc(id) + '…</span>';
    var t = job.timings || [];
    if (!t.length) return '<span class="hint">no partition has timings yet</span>';
    var maxTotal = 0;
    t.forEach(function (p) { maxTotal = Math.max(maxTotal, p.total || 0, TIMING_STAGES.reduce(function (a, s) { return a + (p[s] || 0); }, 0)); });
    var head = '<tr><th class="n">partition</th>' + TIMING_STAGES.map(function (s) { return '<th class="n">' + s + '</th>'; }).join('') +
      '<th class="n">total</th><th>timeline</th></tr>';
    var rows = t.map(function (p) {
      var k = 'timing.' + id + '.' + p.partition + '.';
      return '<tr><td class="n">' + esc(p.partition) + '</td>' + TIMING_STAGES.map(function (s) {
        return '<td class="n" ' + fieldAttr(k + s, p[s]) + '>' + fmtDur(p[s]) + '</td>';
      }).join('') + '<td class="n" ' + fieldAttr(k + 'total', p.total) + '><b>' + fmtDur(p.total) + '</b></td>' +
        '<td class="gantt"><div class="gbar">' + TIMING_STAGES.map(function (s) {
          return '<div class="g-' + s + '" style="width:' + (maxTotal > 0 ? 100 * (p[s] || 0) / maxTotal : 0) + '%" title="' + s + ' ' + fmtDur(p[s]) + '"></div>';
        }).join('') + '</div></td></tr>';
    }).join('');
    return '<div class="hint">job ' + esc(id) + ' · ' + esc(job.key) + ' · ' + esc(job.state) + ' · ' + t.length + ' partitions' +
      (job.error ? ' · <span class="errtext">' + esc(job.error) + '</span>' : '') + '</div>' +
      '<table class="timings" data-timings-job="' + esc(id) + '">' + head + rows + '</table>' +
      '<div class="glegend">' + TIMING_STAGES.map(function (s) { return '<i class="g-' + s + '"></i>' + s; }).join('') + '</div>';
  }

  function renderJobDetail(job) {
    if (state.selected === null || job.id !== state.selected) return;
    window.__lastJob = job;
    state.job = job;
    var row = $('detail-row');
    if (row) row.firstChild.innerHTML = detailHtml(job.id);
  }
  function removeDetail() { var row = $('detail-row'); if (row) row.parentNode.removeChild(row); }

  function selectJob(id) {
    var rows = document.querySelectorAll('#jobs-body tr.job');
    removeDetail();
    for (var i = 0; i < rows.length; i++) rows[i].classList.remove('sel');
    if (state.selected === id) { state.selected = null; state.job = null; return; }
    state.selected = id;
    state.job = null;
    var tr = document.querySelector('#jobs-body tr.job[data-job-id="' + id + '"]');
    if (tr) {
      tr.classList.add('sel');
      tr.insertAdjacentHTML('afterend', '<tr class="detail" id="detail-row"><td colspan="8">' + detailHtml(id) + '</td></tr>');
    }
    fetchJson('v1/jobs/' + id).then(renderJobDetail, function (e) {
      var row = $('detail-row');
      if (row) row.firstChild.innerHTML = '<span class="errtext">' + esc(e.message) + '</span>';
    });
  }

  /* ---- wiring ---- */
  $('jobs-body').addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr.job');
    if (tr) selectJob(Number(tr.getAttribute('data-job-id')));
  });
  $('scale-seg').addEventListener('click', function (ev) {
    var b = ev.target.closest('button');
    if (!b) return;
    state.scale = b.getAttribute('data-scale');
    var all = this.querySelectorAll('button');
    for (var i = 0; i < all.length; i++) all[i].classList.toggle('on', all[i] === b);
    drawChart();
  });
  $('chart').addEventListener('mousemove', function (ev) {
    state.hoverX = ev.clientX - this.getBoundingClientRect().left;
    drawChart();
  });
  $('chart').addEventListener('mouseleave', function () { state.hoverX = null; drawChart(); });
  window.addEventListener('resize', drawChart);
  window.addEventListener('hashchange', readToken);
  readToken();
  tick();
})();
