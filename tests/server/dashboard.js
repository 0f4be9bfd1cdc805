#!/usr/bin/env node
// The dashboard's headless-browser test: loads the daemon's page in Debian's
// Chromium (through playwright-core) while the daemon works, and checks that
// every figure it shows is the daemon's.
//
// Usage: node tests/server/dashboard.js BASE_URL SCREENSHOT.png [TOKEN]
//   BASE_URL: the daemon, e.g. http://127.0.0.1:8790 (or the fake:
//   tests/server/fake_daemon.js). TOKEN: the daemon's bearer token, if any.
//
// How figures are compared: the page keeps the JSON it last rendered in
// window.__lastStatus / __lastHistory / __lastJobs / __lastJob / __lastFleet, and every
// figure in an element with data-field (its raw number in data-value). One
// evaluate() reads all of them at once (the page renders synchronously, so
// they are one moment); then (a) every data-field must equal the value it
// names in that JSON, and (b) that JSON must be a recent /v1/status: the test
// fetches one itself and requires the uptime within 3 s, the budget, version,
// workers and keys_loaded equal and the ended-job counts and proofs not
// ahead of the daemon's (retried a few times, since the two reads are not
// one instant). It also checks that the page updates itself, opens a job's
// per-partition timings, fits 1280x800, shows a banner while the daemon is
// unreachable (requests aborted) and recovers, asks for the token, and
// fetches nothing but the daemon. Prints "N passed, M failed"; exit 1 on any
// failure.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [BASE_ARG, SHOT, TOKEN] = process.argv.slice(2);
if (!BASE_ARG || !SHOT) {
    console.error('usage: node tests/server/dashboard.js BASE_URL SCREENSHOT.png [TOKEN]');
    process.exit(2);
}
const BASE = BASE_ARG.replace(/\/+$/, '');
const ORIGIN = new URL(BASE).origin;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const VIEW = { width: 1280, height: 800 };
const CLASSES = ['key', 'matrices', 'witness', 'abc', 'msm'];
const STAGES = ['synth', 'wait_prove', 'prove', 'wait_final', 'final', 'dealloc'];

let passed = 0, failed = 0;
function check(name, ok, detail) {
    if (ok) passed++;
    else failed++;
    if (!ok || process.env.VERBOSE) console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`);
    return ok;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(p) {
    const headers = TOKEN ? { Authorization: `Bearer ${TOKEN}` } : {};
    const r = await fetch(BASE + p, { headers, signal: AbortSignal.timeout(5000) });
    const body = await r.json();
    if (!r.ok) throw new Error(`GET ${p}: ${r.status} ${JSON.stringify(body)}`);
    return body;
}

// The value a data-field names in the JSON the page rendered.
function resolve(field, snap) {
    let m;
    const dotted = (o, p) => p.split('.').reduce((x, k) => (x == null ? undefined : x[k]), o);
    if (field === 'history.samples') return snap.history ? snap.history.samples.length : undefined;
    if ((m = /^class\.([^.]+)\.(\w+)$/.exec(field))) return dotted(snap.status, `classes.${m[1]}.${m[2]}`);
    if ((m = /^stage\.([^.]+)\.(\w+)$/.exec(field))) return dotted(snap.status, `stages.${m[1]}.${m[2]}`);
    if ((m = /^job\.(\d+)\.(\w+)$/.exec(field))) {
        const job = snap.jobs && snap.jobs.jobs.find((j) => j.id === Number(m[1]));
        return job ? job[m[2]] : undefined;
    }
    if ((m = /^fleet\.node\.(.+)\.(\w+)$/.exec(field))) {
        const d = snap.fleet && (snap.fleet.daemons || []).find((x) => x.id === m[1]);
        return d ? d[m[2]] : undefined;
    }
    if ((m = /^fleet\.(.+)$/.exec(field))) return dotted(snap.fleet, m[1]);
    if ((m = /^timing\.(\d+)\.(\d+)\.(\w+)$/.exec(field))) {
        if (!snap.job || snap.job.id !== Number(m[1])) return undefined;
        const t = (snap.job.timings || []).find((x) => x.partition === Number(m[2]));
        return t ? t[m[3]] : undefined;
    }
    return dotted(snap.status, field);
}
function same(dataValue, v) {
    if (typeof v === 'number') return dataValue !== '' && Number(dataValue) === v;
    if (v === null) return dataValue === '';
    return dataValue === String(v);
}

// Everything the page shows and the JSON behind it, read in one go (the
// page renders synchronously, so this is one moment of it).
let busySeen = false; // did any snapshot see jobs queued or running?
async function snapshot(page) {
    const snap = await page.evaluate(() => ({
        updated: document.body.dataset.updated,
        rows: [...document.querySelectorAll('#jobs-body tr.job')].map((tr) => Number(tr.dataset.jobId)),
        timingRows: [...document.querySelectorAll('table.timings')].map((t) => ({ id: Number(t.dataset.timingsJob), rows: t.rows.length - 1 })),
        chart: {
            areas: document.querySelectorAll('#chart svg path.area').length,
            rss: !!document.querySelector('#chart svg path.line-rss'),
            reserved: !!document.querySelector('#chart svg path.line-reserved'),
            budget: !!document.querySelector('#chart svg path.line-budget, #chart svg text.offscale'),
        },
        status: window.__lastStatus || null,
        history: window.__lastHistory || null,
        jobs: window.__lastJobs || null,
        job: window.__lastJob || null,
        fleet: window.__lastFleet || null,
        fields: [...document.querySelectorAll('[data-field]')].map((el) => ({
            field: el.dataset.field, value: el.getAttribute('data-value'), text: el.textContent.trim(),
            shown: !el.hidden && el.getClientRects().length > 0,
        })),
    }));
    snap.at = Date.now();
    if (snap.status && snap.status.jobs && snap.status.jobs.running + snap.status.jobs.queued > 0) busySeen = true;
    if (snap.jobs && snap.jobs.jobs.some((j) => j.state === 'running' || j.state === 'queued')) busySeen = true;
    return snap;
}

function checkFields(snap, label) {
    let bad = [];
    for (const f of snap.fields) {
        const v = resolve(f.field, snap);
        if (v === undefined) bad.push(`${f.field}: names nothing in the page's JSON`);
        else if (!same(f.value, v)) bad.push(`${f.field}: data-value ${JSON.stringify(f.value)} != ${JSON.stringify(v)}`);
        else if (f.shown && typeof v === 'number' && (f.text === '' || f.text === '–')) bad.push(`${f.field}: shows no text`);
    }
    check(`${label}: all ${snap.fields.length} data-field elements equal the JSON the page rendered`, bad.length === 0,
        bad.slice(0, 12).join('; ') + (bad.length > 12 ? `; … ${bad.length - 12} more` : ''));
    check(`${label}: body.dataset.updated is the rendered status's uptime`,
        snap.status && snap.updated === String(snap.status.uptime), `${snap.updated} vs ${snap.status && snap.status.uptime}`);
}

// (b): the status the page rendered is the daemon's, of the last 3 s.
function recent(pageSt, st) {
    const why = [];
    if (Math.abs(st.uptime - pageSt.uptime) > 3) why.push(`uptime ${pageSt.uptime} vs daemon ${st.uptime}`);
    for (const k of ['budget', 'version', 'keys_loaded', 'baseline_rss'])
        if (pageSt[k] !== st[k]) why.push(`${k} ${pageSt[k]} vs daemon ${st[k]}`);
    if (JSON.stringify(pageSt.workers) !== JSON.stringify(st.workers)) why.push('workers differ');
    for (const k of ['done', 'failed', 'cancelled'])
        if (!(pageSt.jobs[k] <= st.jobs[k])) why.push(`jobs.${k} ${pageSt.jobs[k]} ahead of daemon ${st.jobs[k]}`);
    if (!(pageSt.proofs <= st.proofs)) why.push(`proofs ${pageSt.proofs} ahead of daemon ${st.proofs}`);
    for (const k of ['peak_tracked', 'peak_reserved'])
        if (!(pageSt[k] <= st[k])) why.push(`${k} ${pageSt[k]} ahead of daemon ${st[k]}`);
    return why;
}

async function main() {
    const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'zkpipe-dash-'));
    const watchdog = setTimeout(() => {
        console.log('FAIL the test did not finish in 150 s');
        console.log(`${passed} passed, ${failed + 1} failed`);
        process.exit(1);
    }, 150000);
    const ctx = await chromium.launchPersistentContext(userDir, {
        executablePath: CHROMIUM, headless: true, viewport: VIEW,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
        await run(ctx);
    } finally {
        await ctx.close().catch(() => {});
        fs.rmSync(userDir, { recursive: true, force: true });
        clearTimeout(watchdog);
    }
}

async function run(ctx) {
    const page = ctx.pages()[0] || await ctx.newPage();
    const foreign = [], pageErrors = [];
    page.on('request', (r) => {
        const u = r.url();
        if (!u.startsWith(ORIGIN + '/') && !u.startsWith('data:')) foreign.push(u);
    });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(m.text()); });

    // The daemon must be up and working.
    const first = await api('/v1/status');
    check('the daemon answers /v1/status', typeof first.uptime === 'number', JSON.stringify(first).slice(0, 200));

    const resp = await page.goto(`${BASE}/${TOKEN ? '#token=' + encodeURIComponent(TOKEN) : ''}`, { waitUntil: 'load' });
    check('GET / serves the page', resp && resp.status() === 200 && /text\/html/.test(resp.headers()['content-type'] || ''),
        resp ? `${resp.status()} ${resp.headers()['content-type']}` : 'no response');
    const rendered = await page.waitForFunction(
        () => document.body.dataset.updated && window.__lastStatus && window.__lastHistory && window.__lastJobs,
        null, { timeout: 15000 }).then(() => true, () => false);
    check('the page renders status, history and jobs', rendered);
    if (!rendered) return;

    // (a) and (b), retried until the page's status and the daemon's are close.
    let snap, why;
    for (let i = 0; i < 6; i++) {
        snap = await snapshot(page);
        const st = await api('/v1/status');
        why = recent(snap.status, st);
        if (!why.length) break;
        await sleep(400);
    }
    check("the page's __lastStatus is a recent /v1/status (uptime within 3 s, slow figures equal)", why.length === 0, why.join('; '));
    checkFields(snap, 'first look');

    // The figures the dashboard must show, each present and visible.
    const required = ['uptime', 'version', 'budget', 'tracked', 'peak_tracked', 'reserved', 'peak_reserved', 'rss', 'peak_rss',
        'proofs', 'partitions_failed', 'keys_loaded', 'admission_waiting', 'history.samples',
        ...['queued', 'running', 'done', 'failed', 'cancelled'].map((s) => `jobs.${s}`),
        ...STAGES.flatMap((s) => ['partitions', 'bytes', 'count'].map((f) => `stage.${s}.${f}`)),
        ...CLASSES.flatMap((c) => ['count', 'bytes', 'peak'].map((f) => `class.${c}.${f}`))];
    const have = new Map();
    for (const f of snap.fields) have.set(f.field, (have.get(f.field) || false) || f.shown || f.field === 'history.samples');
    const missing = required.filter((f) => !have.has(f));
    const hiddenF = required.filter((f) => have.has(f) && !have.get(f));
    check(`the ${required.length} required figures are on the page`, missing.length === 0, 'missing: ' + missing.join(', '));
    check('and visible', hiddenF.length === 0, 'hidden: ' + hiddenF.join(', '));
    // Every stage and class the daemon reports is shown (more than the doc's are allowed).
    const st0 = snap.status;
    const extraStages = Object.keys(st0.stages || {}).filter((s) => !have.has(`stage.${s}.partitions`));
    const extraClasses = Object.keys(st0.classes || {}).filter((c) => !have.has(`class.${c}.bytes`));
    check('every stage and class in /v1/status is shown', !extraStages.length && !extraClasses.length,
        [...extraStages, ...extraClasses].join(', '));
    const byteText = snap.fields.find((f) => f.field === 'budget');
    check('bytes are humanised in the text (budget)', byteText && /\d (B|KiB|MiB|GiB|TiB)$/.test(byteText.text), byteText && byteText.text);

    // History: charted, recent (the daemon's newest sample within 3 s, plus
    // the time since the snapshot), with a line for the budget.
    const hist = await api('/v1/status/history');
    const lag = 3 + (Date.now() - snap.at) / 1000;
    const ph = snap.history.samples, dh = hist.samples;
    check('history has samples', ph.length > 0 && dh.length > 0, `${ph.length} on the page, ${dh.length} from the daemon`);
    if (ph.length && dh.length)
        check("the page's history is recent", Math.abs(dh[dh.length - 1].t - ph[ph.length - 1].t) <= lag,
            `last t ${ph[ph.length - 1].t} vs ${dh[dh.length - 1].t} (allowed ${lag.toFixed(1)} s)`);
    const chart = { ...snap.chart, classes: Object.keys((ph[ph.length - 1] || {}).classes || {}).length };
    check('the chart stacks every class and draws RSS, reserved and the budget',
        chart.areas === chart.classes && chart.areas >= 1 && chart.rss && chart.reserved && chart.budget, JSON.stringify(chart));

    // Jobs: one row per job of the list the page rendered; the list is the daemon's.
    const rows = snap.rows;
    const jl = snap.jobs.jobs;
    check('one row per job of /v1/jobs?limit=50', JSON.stringify(rows) === JSON.stringify(jl.map((j) => j.id)),
        `rows ${rows.slice(0, 8)} vs ${jl.slice(0, 8).map((j) => j.id)}`);
    const djobs = (await api('/v1/jobs?limit=50')).jobs;
    check("the page's job list is the daemon's (newest first, none ahead)",
        jl.length <= 50 && (jl.length === 0 || (djobs.length > 0 && jl[0].id <= djobs[0].id)) &&
        jl.every((j, i) => i === 0 || jl[i - 1].id > j.id), `page top ${jl[0] && jl[0].id}, daemon top ${djobs[0] && djobs[0].id}`);

    // The page updates itself: a newer status within 4 s, still consistent.
    const u0 = Number(snap.updated);
    const moved = await page.waitForFunction((u) => Number(document.body.dataset.updated) > u, u0, { timeout: 4000 })
        .then(() => true, () => false);
    check('the page updates itself every second', moved);
    checkFields(await snapshot(page), 'after an update');

    // A job's per-partition timings, on click.
    const pick = jl.find((j) => j.state === 'running' && j.done > 0) || jl.find((j) => j.state === 'running') ||
        jl.find((j) => j.state === 'done') || jl[0];
    if (pick) {
        await page.click(`#jobs-body tr.job[data-job-id="${pick.id}"]`);
        const opened = await page.waitForFunction((id) => window.__lastJob && window.__lastJob.id === id &&
            document.querySelector(`table.timings[data-timings-job="${id}"]`), pick.id, { timeout: 5000 }).then(() => true, () => false);
        check(`clicking job ${pick.id} shows its per-partition timings`, opened);
        if (opened) {
            const s2 = await snapshot(page);
            checkFields(s2, `job ${pick.id} opened`);
            const n = (s2.timingRows.find((t) => t.id === pick.id) || { rows: -1 }).rows;
            const dj = await api(`/v1/jobs/${pick.id}`);
            check(`job ${pick.id}: one row per partition timing`, n === s2.job.timings.length && n === dj.timings.length,
                `${n} rows, page JSON ${s2.job.timings.length}, daemon ${dj.timings.length}`);
            if (dj.state === 'done' && s2.job.state === 'done')
                check(`job ${pick.id}: the totals are the daemon's`, JSON.stringify(dj.timings.map((t) => t.total)) ===
                    JSON.stringify(s2.job.timings.map((t) => t.total)));
        }
    } else {
        check('there is a job to open', false, 'the job list is empty: submit jobs while the test runs');
    }

    // One screen: nothing wider than 1280, the main panels within 800 px.
    const layout = await page.evaluate(() => {
        const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return { top: r.top, bottom: r.bottom, right: r.right }; };
        return {
            width: document.documentElement.scrollWidth, tiles: box('.tiles'), pipeline: box('.pipeline-panel'),
            chart: box('.chart-panel'), classes: box('.classes-panel'), jobs: box('.jobs-panel'),
        };
    });
    check('no horizontal scrolling at 1280x800', layout.width <= VIEW.width, `scrollWidth ${layout.width}`);
    const off = ['tiles', 'pipeline', 'chart', 'classes'].filter((k) => layout[k].bottom > VIEW.height || layout[k].right > VIEW.width);
    check('tiles, pipeline, chart and classes fit in 1280x800, and the job list starts on screen',
        off.length === 0 && layout.jobs.top < VIEW.height - 100, off.join(', ') + ` jobs top ${layout.jobs.top}`);

    // The opened job's timings in view, for the screenshot.
    await page.evaluate(() => {
        const sel = document.querySelector('#jobs-body tr.job.sel'), box = document.querySelector('.jobs-scroll');
        if (sel) box.scrollTop = sel.offsetTop - document.querySelector('.jobs thead').offsetHeight - 2 * sel.offsetHeight;
    });
    fs.mkdirSync(path.dirname(path.resolve(SHOT)), { recursive: true });
    await page.screenshot({ path: SHOT });
    check(`screenshot saved to ${SHOT}`, fs.existsSync(SHOT) && fs.statSync(SHOT).size > 10000);

    // The daemon down: a visible banner, the page keeps retrying and recovers.
    await page.route('**/v1/**', (route) => route.abort('connectionrefused'));
    const down = await page.waitForFunction(() => {
        const b = document.getElementById('banner');
        return b && !b.hidden && b.getClientRects().length && /retrying/.test(b.textContent);
    }, null, { timeout: 6000 }).then(() => true, () => false);
    check('an unreachable daemon shows a visible banner', down);
    const uDown = Number(await page.evaluate(() => document.body.dataset.updated));
    await sleep(1500);
    await page.unroute('**/v1/**');
    const back = await page.waitForFunction((u) => document.getElementById('banner').hidden && Number(document.body.dataset.updated) > u,
        uDown, { timeout: 6000 }).then(() => true, () => false);
    check('the page keeps retrying and recovers when the daemon is back', back);
    if (back) checkFields(await snapshot(page), 'after recovering');

    // The token: sent from #token=; without it, the page says what is wrong.
    if (TOKEN) {
        const p2 = await ctx.newPage();
        p2.on('request', (r) => { if (!r.url().startsWith(ORIGIN + '/')) foreign.push(r.url()); });
        await p2.goto(`${BASE}/`);
        const asks = await p2.waitForFunction(() => {
            const b = document.getElementById('banner');
            return b && !b.hidden && /token/i.test(b.textContent);
        }, null, { timeout: 6000 }).then(() => true, () => false);
        check('without #token= the page shows that the daemon wants a token', asks);
        await p2.close();
    }

    check('the daemon was proving while the page was tested (jobs queued or running)', busySeen,
        'the page never saw a queued or running job: keep jobs running while the test runs');
    check('the page fetches nothing but the daemon', foreign.length === 0, foreign.slice(0, 5).join(' '));
    check('no script errors on the page', pageErrors.length === 0, pageErrors.slice(0, 5).join(' | '));
}

main().then(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
}, (e) => {
    console.log(`FAIL ${e && e.stack ? e.stack : e}`);
    console.log(`${passed} passed, ${failed + 1} failed`);
    process.exit(1);
});
