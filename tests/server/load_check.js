#!/usr/bin/env node
// load_crash.sh's bookkeeping: did every request id become exactly one job,
// and was every job done exactly once, across the kill -9 and the restart?
//   load_check.js WORKDIR NJOBS T_KILL
// Reads WORKDIR/accepted/N and resubmit/N ("ID ATTEMPTS" per client N),
// plan/N ("CURVE W W ..."), jobs.json (GET /v1/jobs?limit=1000 after the
// run) and the daemons' logs d1.log, d2.log ("job ID done" lines). Prints
// "PASS ..." / "FAIL ...: why" lines, and "FIG name value" lines for the
// figures, and writes WORKDIR/await.list ("N ID") for the awaits.
"use strict";
const fs = require("fs");
const path = require("path");
const [W, njobsArg, tKillArg] = process.argv.slice(2);
const NJOBS = parseInt(njobsArg, 10), T_KILL = parseFloat(tKillArg);
const out = [];
const pass = (m) => out.push("PASS " + m);
const fail = (m, why) => out.push("FAIL " + m + (why ? ": " + why : ""));
const fig = (k, v) => out.push("FIG " + k + " " + v);
const readDir = (d) => {
    const m = new Map();
    const dir = path.join(W, d);
    if (!fs.existsSync(dir)) return m;
    for (const f of fs.readdirSync(dir)) m.set(parseInt(f, 10), fs.readFileSync(path.join(dir, f), "utf8").trim());
    return m;
};

const accepted = readDir("accepted"), resubmit = readDir("resubmit"), plan = readDir("plan");
const idOf = new Map([...accepted].map(([n, v]) => [n, parseInt(v.split(" ")[0], 10)]));
const attempts = new Map([...accepted].map(([n, v]) => [n, parseInt(v.split(" ")[1], 10)]));

// every client got an id, and different clients different ids
if (accepted.size === NJOBS) pass(`all ${NJOBS} clients got a job id`);
else fail(`all ${NJOBS} clients got a job id`, `${accepted.size} did`);
const ids = [...idOf.values()];
const dup = ids.filter((x, i) => ids.indexOf(x) !== i);
if (dup.length === 0) pass("no two request ids share a job id");
else fail("no two request ids share a job id", "duplicated: " + dup.slice(0, 10).join(", "));

// resubmitting every request id after the restart returns the same job
let same = 0, differ = [];
for (const [n, v] of resubmit) {
    if (parseInt(v.split(" ")[0], 10) === idOf.get(n)) same++;
    else differ.push(`req-${n}: ${idOf.get(n)} then ${v.split(" ")[0]}`);
}
if (resubmit.size === NJOBS && same === NJOBS) pass(`the ${NJOBS} request ids submitted again: the same job ids`);
else fail("the request ids submitted again: the same job ids", `${same}/${resubmit.size} same; ${differ.slice(0, 5).join("; ")}`);

// the store: one job per request id, all done, nothing else
const jobs = JSON.parse(fs.readFileSync(path.join(W, "jobs.json"), "utf8")).jobs;
const byRid = new Map();
for (const j of jobs) {
    if (!byRid.has(j.request_id)) byRid.set(j.request_id, []);
    byRid.get(j.request_id).push(j);
}
const multi = [...byRid].filter(([, js]) => js.length > 1);
if (jobs.length === NJOBS && multi.length === 0) pass(`the store holds ${NJOBS} jobs, one per request id`);
else fail(`the store holds ${NJOBS} jobs, one per request id`,
          `${jobs.length} jobs; request ids with several: ${multi.slice(0, 5).map(([r, js]) => r + "=" + js.map((j) => j.id)).join(" ")}`);
let mapped = 0;
for (const [n, id] of idOf) {
    const js = byRid.get("req-" + n) || [];
    if (js.length === 1 && js[0].id === id) mapped++;
}
if (mapped === NJOBS) pass("every request id's job in the store is the one its client got");
else fail("every request id's job in the store is the one its client got", `${mapped}/${NJOBS}`);
const done = jobs.filter((j) => j.state === "done");
if (done.length === NJOBS) pass(`${NJOBS} jobs done`);
else fail(`${NJOBS} jobs done`, `${done.length} done; others: ${jobs.filter((j) => j.state !== "done").slice(0, 5).map((j) => j.id + " " + j.state + " " + (j.error || "")).join("; ")}`);
let partsOk = 0, totalParts = 0;
for (const [n, id] of idOf) {
    const want = plan.get(n).split(" ").length - 1;
    const j = jobs.find((x) => x.id === id);
    totalParts += want;
    if (j && j.partitions === want && j.done === want) partsOk++;
}
if (partsOk === NJOBS) pass(`every job has its partitions, all done (${totalParts} in all)`);
else fail("every job has its partitions, all done", `${partsOk}/${NJOBS}`);

// done exactly once: the daemons' "job N done" lines
const doneLines = new Map();
for (const f of ["d1.log", "d2.log"]) {
    const p = path.join(W, f);
    if (!fs.existsSync(p)) continue;
    for (const m of fs.readFileSync(p, "utf8").matchAll(/job (\d+) done/g)) {
        const id = parseInt(m[1], 10);
        doneLines.set(id, (doneLines.get(id) || []).concat(f));
    }
}
const twice = [...doneLines].filter(([, fs_]) => fs_.length > 1);
if (twice.length === 0) pass(`no job reported done twice (${doneLines.size} done lines over both runs)`);
else fail("no job reported done twice", twice.slice(0, 5).map(([id, f]) => id + ": " + f.join("+")).join("; "));
const d1done = [...doneLines].filter(([, f]) => f.includes("d1.log")).length;

// the crash, in figures
const retried = [...attempts].filter(([, a]) => a > 1).map(([n]) => n);
const dedup = retried.filter((n) => {
    const j = jobs.find((x) => x.id === idOf.get(n));
    return j && j.submitted < T_KILL;
});
const submitted = jobs.map((j) => j.submitted), finished = jobs.map((j) => j.finished || 0);
fig("jobs", jobs.length);
fig("partitions", totalParts);
fig("done_before_kill", d1done);
fig("accepted_before_kill", jobs.filter((j) => j.submitted < T_KILL).length);
fig("clients_retried", retried.length);
fig("retries_answered_with_a_job_committed_before_the_kill", dedup.length);
fig("first_submitted", Math.min(...submitted));
fig("last_finished", Math.max(...finished));
fs.writeFileSync(path.join(W, "await.list"), [...idOf].map(([n, id]) => `${n} ${id}`).join("\n") + "\n");
console.log(out.join("\n"));
