// The policy-hash page (web/policy-hash.html) in a real browser, compared
// with the C implementation. Usage:
//
//   node policy-hash.test.mjs SECTION...
//
// shared       every line of tests/conformance/policy-hash/expected.tsv
// suite        every line of tests/conformance/json-test-suite/expected.tsv (raw, wrapped)
// vectors      tests/vectors/*.json, tests/web/vectors/*.json, and inputs made here
// check        pbp 1 verdicts, messages and warnings against `sharness-exec check`
// ui           what a person sees: typing, a file, a drop, copy; the screenshot
// hello        the hello policy and its hash shown in the page
// page         self-contained (no request but the page), secure context,
//              no script error, accessible names and the live region
//
// For each input the page's verdict and exact hash must equal those of
// `$SHARNESS_EXEC hash` (and of expected.tsv where there is one). Every
// disagreement is listed; the exit status is 1 when there is any.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Browser } from "./cdp.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const top_srcdir = process.env.top_srcdir || path.resolve(here, "../..");
const top_builddir = process.env.top_builddir || top_srcdir;
const SHARNESS_EXEC = process.env.SHARNESS_EXEC || path.join(top_builddir, "test-sharness-exec");
const SHARED = path.join(top_srcdir, "tests", "conformance");
const PAGE_FILE = path.join(top_srcdir, "web", "policy-hash.html");
const PAGE = pathToFileURL(PAGE_FILE).href;
const ARTIFACTS = path.join(top_builddir, "artifacts");

const HELLO = '{"pbp":1,"id":"sharness-exec-hello","files":{"read":["/etc"],"write":[],"exec":["/bin","/lib","/lib64","/sbin","/usr"]},"network":"none","process":{"no_new_privs":true,"max_memory_mb":256}}';

const failures = [];
const fail = (msg) => failures.push(msg);
const note = (msg) => console.log("# " + msg);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "policy-hash-test-"));
fs.chmodSync(tmp, 0o755);
let tmpCount = 0;
function tmpFile(bytes, name = "case.json") {
  const f = path.join(tmp, `${tmpCount++}-${name.replace(/[^\w.-]/g, "_")}`);
  fs.writeFileSync(f, bytes, { mode: 0o644 });
  return f;
}

// `sharness-exec hash FILE`: {hash} | {refused} | {error}.
function binaryHash(file) {
  const r = spawnSync(SHARNESS_EXEC, ["hash", file], { encoding: "utf8" });
  if (r.error) return { error: `cannot run ${SHARNESS_EXEC}: ${r.error.message}` };
  if (r.status === 0 && /^sha256:[0-9a-f]{64}\n$/.test(r.stdout) && r.stderr === "")
    return { hash: r.stdout.trim() };
  if (r.status === 125 && r.stdout === "" && /^sharness-exec: [^\n]+\n$/.test(r.stderr))
    return { refused: r.stderr.trim() };
  return { error: `status ${r.status === null ? r.signal : r.status}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}` };
}

// The home directories check sees (policy/warn.c): $HOME, and each of
// /etc/passwd's but "/". The page is given them to warn as check does.
const HOMES = [process.env.HOME || "", ...fs.readFileSync("/etc/passwd", "utf8").split("\n")
  .map((l) => l.split(":")[5]).filter((d) => d !== undefined && d !== "/")].filter((d) => d !== "");

// `sharness-exec check FILE`: {valid, id, warnings: [line...]} | {problems: [line...]}
// | {refused} | {error}. warnings: each line after "sharness-exec: FILE: warning: ".
function binaryCheck(file) {
  const r = spawnSync(SHARNESS_EXEC, ["check", file], { encoding: "utf8" });
  if (r.error) return { error: `cannot run ${SHARNESS_EXEC}: ${r.error.message}` };
  const prefix = `sharness-exec: ${file}: `;
  // check's warnings (a broad write path, a home, a loader variable; a
  // port no role offers) advise and do not refuse.
  const advisory = (l) => l.startsWith(`${prefix}warning: `) || l.startsWith("sharness-exec: warning: ");
  const stderr = r.stderr === "" ? [] : r.stderr.slice(0, -1).split("\n");
  if (r.status === 0 && (r.stderr === "" || (r.stderr.endsWith("\n") && stderr.every(advisory)))) {
    const m = r.stdout.match(/^(.*): valid pbp 1 policy "(.*)"\n$/s);
    const warn = `${prefix}warning: `;
    if (m && m[1] === file)
      return { valid: true, id: m[2], warnings: stderr.map((l) => l.startsWith(warn) ? l.slice(warn.length) : l) };
    const l = r.stdout.match(/^(.*): valid launch 1 manifest "(.*?)"\n/);
    if (l && l[1] === file) return { manifest: true, id: l[2] };
  }
  if (r.status === 125 && r.stdout === "" && /^sharness-exec: fatal: [^\n]+\n$/.test(r.stderr))
    return { refused: r.stderr.trim() };
  if (r.status === 125 && r.stdout === "" && r.stderr.endsWith("\n")) {
    const lines = r.stderr.slice(0, -1).split("\n");
    if (lines.every((l) => l.startsWith(prefix)))
      return { problems: lines.map((l) => l.slice(prefix.length)) };
  }
  return { error: `status ${r.status === null ? r.signal : r.status}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}` };
}

// NAME <TAB> ... <TAB> VERDICT lines.
function readTSV(file) {
  return fs.readFileSync(file, "utf8").split("\n").filter((l) => l && !l.startsWith("#")).map((l) => l.split("\t"));
}

async function openPage(browser, { network } = {}) {
  const page = await browser.newPage();
  page.errors = [];
  page.requests = [];
  await page.send("Runtime.enable");
  page.on("Runtime.exceptionThrown", (p) => page.errors.push("exception: " + (p.exceptionDetails.exception?.description || p.exceptionDetails.text)));
  page.on("Runtime.consoleAPICalled", (p) => {
    if (p.type === "error" || p.type === "warning" || p.type === "assert")
      page.errors.push(`console.${p.type}: ` + p.args.map((a) => a.value ?? a.description).join(" "));
  });
  await page.send("Log.enable");
  page.on("Log.entryAdded", (p) => { if (p.entry.level === "error") page.errors.push(`log (${p.entry.source}): ${p.entry.text}`); });
  if (network) {
    await page.send("Network.enable");
    page.on("Network.requestWillBeSent", (p) => page.requests.push(p.request.url));
  }
  await page.goto(PAGE);
  await page.waitFor(() => /^sha256:|refused|crypto/.test(document.getElementById("hello-hash").textContent), "the hello hash");
  return page;
}

// The page's verdict on many inputs at once, through window.policyHash.
function pageHashes(page, cases) {
  return page.call(async (b64s) => {
    const out = [];
    for (const s of b64s) {
      const bin = atob(s);
      const bytes = new Uint8Array(bin.length);
      for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
      const r = await window.policyHash(bytes);
      out.push(r.hash ? { hash: r.hash } : { refused: r.refused });
    }
    return out;
  }, cases.map((c) => Buffer.from(c.bytes).toString("base64")));
}

const verdict = (r) => r.hash || (r.refused !== undefined ? "refused" : "error: " + r.error);

// Compare the page with the binary (and EXPECT when a case has one).
async function compareHashes(page, label, cases, { allowEmpty = false } = {}) {
  const results = await pageHashes(page, cases);
  let n = 0, accepted = 0, refused = 0, sameReason = 0;
  cases.forEach((c, k) => {
    const p = results[k];
    const b = binaryHash(tmpFile(c.bytes, c.name));
    const pv = verdict(p), bv = verdict(b);
    const why = [];
    if (b.error) why.push(`sharness-exec hash: ${b.error}`);
    else if (pv !== bv) why.push(`page ${pv}${p.refused ? " (" + p.refused + ")" : ""}, sharness-exec ${bv}${b.refused ? " (" + b.refused + ")" : ""}`);
    if (c.expect !== undefined && pv !== c.expect) why.push(`page ${pv}, ${c.from} ${c.expect}`);
    if (why.length) fail(`${label} ${c.name}: ${why.join("; ")}`);
    n++;
    if (p.hash) accepted++;
    // The reasons are not part of the contract, but the page words them as the CLI does.
    if (p.refused !== undefined && b.refused) {
      refused++;
      if (b.refused.endsWith(": " + p.refused)) sameReason++;
    }
  });
  note(`${label}: ${n} inputs compared (${accepted} hashed, ${n - accepted} refused by the page)` +
    (refused ? `; ${sameReason} of ${refused} refusals worded as sharness-exec words them` : ""));
  if (!n && !allowEmpty) fail(`${label}: no input to compare`);
}

function sharedCases() {
  const dir = path.join(SHARED, "policy-hash");
  return readTSV(path.join(dir, "expected.tsv")).map(([name, expect]) => ({
    name, expect, from: "expected.tsv", bytes: fs.readFileSync(path.join(dir, "vectors", name)),
  }));
}

function suiteCases() {
  const dir = path.join(SHARED, "json-test-suite");
  return readTSV(path.join(dir, "expected.tsv")).map(([name, form, expect]) => {
    const raw = fs.readFileSync(path.join(dir, "test_parsing", name));
    const bytes = form === "wrapped" ? Buffer.concat([Buffer.from('{"v":'), raw, Buffer.from("}")]) : raw;
    return { name: `${name} (${form})`, expect, from: "expected.tsv", bytes };
  });
}

// The project's vectors, with their expected.tsv when there is one.
function dirCases(dir) {
  if (!fs.existsSync(dir)) return [];
  const expected = new Map();
  const tsv = path.join(dir, "expected.tsv");
  if (fs.existsSync(tsv))
    for (const cols of readTSV(tsv)) {
      const v = cols[cols.length - 1].trim();
      expected.set(cols[0], /^refused\b/.test(v) ? "refused" : v);
    }
  return fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((name) => ({
    name: path.relative(top_srcdir, path.join(dir, name)), bytes: fs.readFileSync(path.join(dir, name)),
    expect: expected.get(name), from: path.relative(top_srcdir, tsv),
  }));
}

// Inputs too big, or too exact about bytes, to keep as files.
function madeCases() {
  const pad = (total) => {
    const head = '{"s":"', tail = '"}';
    return Buffer.from(head + "x".repeat(total - head.length - tail.length) + tail);
  };
  const nest = (n, inner) => "{\"a\":".repeat(n - 1) + inner + "}".repeat(n - 1);
  const arrays = (n, inner) => '{"a":' + "[".repeat(n - 1) + inner + "]".repeat(n - 1) + "}";
  const b = (s) => Buffer.from(s);
  return [
    { name: "exactly 1 MiB", bytes: pad(1 << 20) },
    { name: "1 MiB and one byte", bytes: pad((1 << 20) + 1) },
    { name: "1 MiB of whitespace after the object", bytes: Buffer.concat([b("{}"), Buffer.alloc((1 << 20) - 2, 0x20)]) },
    { name: "an integer of 500000 digits", bytes: b('{"n":' + "9".repeat(500000) + "}") },
    { name: "an integer of 17 digits, in range once its leading zeros... (refused)", bytes: b('{"n":00000000000000001}') },
    { name: "2^53-1", bytes: b('{"n":9007199254740991,"m":-9007199254740991}') },
    { name: "2^53", bytes: b('{"n":9007199254740992}') },
    { name: "-2^53", bytes: b('{"n":-9007199254740992}') },
    { name: "64 levels, a scalar last", bytes: b(nest(63, '{"a":1}')) },
    { name: "65 levels, a scalar last", bytes: b(nest(64, '{"a":1}')) },
    { name: "64 levels of arrays", bytes: b(arrays(63, "[]")) },
    { name: "65 levels of arrays", bytes: b(arrays(64, "[]")) },
    { name: "65 levels of arrays, scalar", bytes: b(arrays(63, "[1]")) },
    { name: "100000 opening braces", bytes: b('{"a":'.repeat(100000)) },
    { name: "keys around U+FFFF and U+10000", bytes: b('{"\uffff":1,"\u{10000}":2,"\ue000":3,"\ud7ff":4,"\u{10ffff}":5,"\u{1f600}":6}') },
    { name: "escaped astral keys", bytes: b('{"\\ud83d\\ude00":1,"\\ue000":2,"\\uffff":3,"\\ud800\\udc00":4}') },
    { name: "a raw and an escaped astral key, equal", bytes: b('{"\u{1f600}":1,"\\ud83d\\ude00":2}') },
    { name: "every byte 0x01-0x1f escaped", bytes: b('{"s":"' + [...Array(31)].map((_, k) => "\\u" + (k + 1).toString(16).padStart(4, "0")).join("") + '"}') },
    { name: "DEL, C1, U+2028, U+2029 escaped", bytes: b('{"s":"\\u007f\\u0080\\u009f\\u2028\\u2029\\u00e9"}') },
    { name: "upper-case hex escapes", bytes: b('{"s":"\\u00C9\\uD83D\\uDE00"}') },
    { name: "escaped slash", bytes: b('{"a\\/b":"\\/"}') },
    { name: "U+0000 in a key", bytes: b('{"a\\u0000b":1,"a":2}') },
    { name: "a lone low surrogate", bytes: b('{"s":"\\udc00"}') },
    { name: "a high surrogate, then a letter", bytes: b('{"s":"\\ud800\\u0041"}') },
    { name: "a high surrogate at the end", bytes: b('{"s":"a\\ud800"}') },
    { name: "two high surrogates", bytes: b('{"s":"\\ud800\\ud800\\udc00"}') },
    { name: "a lone surrogate in a key", bytes: b('{"\\udfff":1}') },
    { name: "a BOM inside a string", bytes: b('{"s":"\ufeff"}') },
    { name: "a BOM after the object", bytes: b("{}\ufeff") },
    { name: "form feed between tokens", bytes: b('{"a":1,\f"b":2}') },
    { name: "no-break space between tokens", bytes: b('{"a":1,\u00a0"b":2}') },
    { name: "vertical tab between tokens", bytes: b('{"a":1,\v"b":2}') },
    { name: "a raw DEL in a string", bytes: b('{"s":"\x7f"}') },
    { name: "a raw tab in a string", bytes: b('{"s":"\t"}') },
    { name: "truncated UTF-8 at the end", bytes: Buffer.concat([b('{"s":"a"}'), Buffer.from([0xe2, 0x82])]) },
    { name: "truncated UTF-8 in a string", bytes: Buffer.concat([b('{"s":"'), Buffer.from([0xe2, 0x82]), b('"}')]) },
    { name: "overlong NUL", bytes: Buffer.concat([b('{"s":"'), Buffer.from([0xc0, 0x80]), b('"}')]) },
    { name: "above U+10FFFF", bytes: Buffer.concat([b('{"s":"'), Buffer.from([0xf4, 0x90, 0x80, 0x80]), b('"}')]) },
    { name: "CESU-8 surrogate pair", bytes: Buffer.concat([b('{"s":"'), Buffer.from([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]), b('"}')]) },
    { name: "UTF-16LE with a BOM", bytes: Buffer.from("\ufeff{}", "utf16le") },
    { name: "empty", bytes: Buffer.alloc(0) },
    { name: "only whitespace", bytes: b(" \n\t\r") },
    { name: "-0 and 0 as keys' values", bytes: b('{"b":-0,"a":0,"c":[-0,0,-1]}') },
    { name: "1.0", bytes: b('{"a":1.0}') },
    { name: "1e0", bytes: b('{"a":1e0}') },
    { name: "1.", bytes: b('{"a":1.}') },
    { name: "-", bytes: b('{"a":-}') },
    { name: "+1", bytes: b('{"a":+1}') },
    { name: "-Infinity", bytes: b('{"a":-Infinity}') },
    { name: "literals", bytes: b('{"t":true,"f":false,"n":null}') },
    { name: "a truncated literal", bytes: b('{"t":tru}') },
    { name: "an upper-case literal", bytes: b('{"t":True}') },
  ];
}

async function sectionShared(browser) {
  const page = await openPage(browser);
  await compareHashes(page, "conformance/policy-hash", sharedCases());
}

async function sectionSuite(browser) {
  const page = await openPage(browser);
  await compareHashes(page, "conformance/json-test-suite", suiteCases());
}

async function sectionVectors(browser) {
  const page = await openPage(browser);
  // tests/vectors may still be empty; the inputs below never are.
  await compareHashes(page, "tests/vectors", dirCases(path.join(top_srcdir, "tests", "vectors")), { allowEmpty: true });
  await compareHashes(page, "tests/web/vectors", dirCases(path.join(here, "vectors")));
  await compareHashes(page, "made here", madeCases());
}

// The pbp 1 verdict: same problems, same lines, same order, as the binary.
async function sectionCheck(browser) {
  const page = await openPage(browser);
  const files = [];
  for (const d of ["tests/fixtures/policy/good", "tests/fixtures/policy/warn", "tests/fixtures/policy/bad", "tests/web/vectors", "tests/vectors"]) {
    const dir = path.join(top_srcdir, d);
    if (fs.existsSync(dir))
      for (const f of fs.readdirSync(dir).sort()) if (f.endsWith(".json")) files.push(path.join(d, f));
  }
  const cases = files.map((f) => ({ name: f, bytes: fs.readFileSync(path.join(top_srcdir, f)) }));
  cases.push({ name: "the hello policy", bytes: Buffer.from(HELLO) });
  cases.push({ name: "a policy with a float", bytes: Buffer.from('{"pbp":1.0,"id":"f","network":"none","process":{"no_new_privs":true}}') });
  cases.push({ name: "a policy with a BOM", bytes: Buffer.from("\ufeff" + HELLO) });
  cases.push({ name: "a policy with a duplicate key", bytes: Buffer.from(HELLO.replace('"pbp":1', '"pbp":1,"pbp":1')) });
  const results = await page.call(async (b64s, homes) => {
    const out = [];
    for (const s of b64s) out.push(await window.policyCheck(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)), { homes }));
    return out;
  }, cases.map((c) => Buffer.from(c.bytes).toString("base64")), HOMES);
  let valid = 0, invalid = 0, refused = 0, lines = 0, manifests = 0, warned = 0, warnings = 0;
  cases.forEach((c, k) => {
    const p = results[k];
    const b = binaryCheck(tmpFile(c.bytes, c.name));
    if (b.error) return fail(`check ${c.name}: sharness-exec check: ${b.error}`);
    // A launch manifest: the page says so and checks no further.
    if (p.manifest || b.manifest) {
      manifests++;
      if (!p.manifest || !(b.manifest || b.problems))
        fail(`check ${c.name}: page ${JSON.stringify(p)}, sharness-exec check ${JSON.stringify(b)}: one of them takes it for no launch manifest`);
      return;
    }
    if (p.refused !== undefined) {
      refused++;
      if (!b.refused)
        fail(`check ${c.name}: page refused it (${p.refused}), sharness-exec check says ${JSON.stringify(b)}`);
      return;
    }
    if (b.refused) return fail(`check ${c.name}: sharness-exec check refused it (${b.refused}), the page did not`);
    if (p.valid) {
      valid++;
      if (!b.valid || b.id !== p.id)
        return fail(`check ${c.name}: page: valid pbp 1 policy ${JSON.stringify(p.id)}; sharness-exec check: ${JSON.stringify(b)}`);
      warned += p.warnings.length ? 1 : 0;
      warnings += p.warnings.length;
      if (b.warnings.join("\n") !== p.warnings.join("\n")) {
        const diff = [];
        for (let j = 0; j < Math.max(b.warnings.length, p.warnings.length); j++)
          if (b.warnings[j] !== p.warnings[j]) diff.push(`  warning ${j + 1}: page ${JSON.stringify(p.warnings[j])}\n          sharness-exec ${JSON.stringify(b.warnings[j])}`);
        fail(`check ${c.name}: the warnings differ:\n${diff.join("\n")}`);
      }
      return;
    }
    invalid++;
    lines += p.problems.length;
    const bl = b.problems || [];
    if (b.valid || bl.join("\n") !== p.problems.join("\n")) {
      const diff = [];
      for (let j = 0; j < Math.max(bl.length, p.problems.length); j++)
        if (bl[j] !== p.problems[j]) diff.push(`  line ${j + 1}: page ${JSON.stringify(p.problems[j])}\n          sharness-exec ${JSON.stringify(b.valid ? "valid" : bl[j])}`);
      fail(`check ${c.name}: the messages differ:\n${diff.join("\n")}`);
    }
  });
  note(`check: ${cases.length} files compared with sharness-exec check: ${valid} valid, ${invalid} invalid (${lines} problem lines), ${refused} refused as JSON, ${manifests} launch manifests`);
  const fixtures = files.filter((f) => f.startsWith("tests/fixtures/")).length;
  note(`check: ${fixtures} of them from tests/fixtures/policy`);
  note(`check: ${warnings} warnings on ${warned} valid files, as sharness-exec check's (homes: ${HOMES.length} from $HOME and /etc/passwd)`);
  // Not told the homes, the page takes /root and each /home/NAME for one.
  const homeOf = (w) => `{"pbp":1,"id":"h","files":{"write":${JSON.stringify(w)}},"network":"none","process":{"no_new_privs":true}}`;
  const guessed = await page.call(async (texts) => {
    const out = [];
    for (const t of texts) out.push((await window.policyCheck(new TextEncoder().encode(t))).warnings.map((l) => l.replace(/ is a home directory.*/, "")));
    return out;
  }, [homeOf(["/root", "/home/alice/", "/home/alice/src", "/srv/home/bob", "/roots"])]);
  if (JSON.stringify(guessed) !== JSON.stringify([['files.write[0]: "/root"', 'files.write[1]: "/home/alice"']]))
    fail(`check: with no list of homes the page warns of ${JSON.stringify(guessed)}, not of /root and /home/alice alone`);
}

// What a person sees, driven through the real controls.
async function sectionUI(browser) {
  const page = await openPage(browser);
  await page.send("Emulation.setDeviceMetricsOverride", { width: 1000, height: 1500, deviceScaleFactor: 1, mobile: false });
  const shown = () => page.call(() => {
    const t = (id) => { const e = document.getElementById(id); return e ? e.textContent : null; };
    return { hash: t("hash"), verdict: t("verdict"), reason: t("reason"), result: document.getElementById("result").textContent,
      problems: [...document.querySelectorAll("#problems li")].map((li) => li.textContent),
      warnings: [...document.querySelectorAll("#warnings li")].map((li) => li.textContent),
      warningsAfterVerdict: !!document.querySelector("#verdict ~ #warnings"),
      copyDisabled: document.getElementById("copy").disabled };
  });
  const settle = async (what) => {
    // The hash is computed asynchronously; wait until the region shows a verdict for the current input.
    await page.waitFor(() => document.getElementById("verdict") !== null && document.getElementById("result").getAttribute("aria-busy") === "false", what);
    return shown();
  };
  const expectBinary = (label, bytes, s) => {
    const b = binaryHash(tmpFile(bytes, "ui.json"));
    if (b.error) return fail(`ui ${label}: sharness-exec hash: ${b.error}`);
    const pv = s.hash || (s.verdict && s.verdict.startsWith("Refused") ? "refused" : "nothing");
    if (pv !== verdict(b)) fail(`ui ${label}: the page shows ${pv} (${s.result.trim()}), sharness-exec hash gives ${verdict(b)}`);
  };

  const before = await shown();
  if (!/Nothing to hash yet/.test(before.result) || !before.copyDisabled)
    fail(`ui: before any input the result should say there is nothing to hash, with copy disabled: ${JSON.stringify(before)}`);

  // 1. Type a policy into the labelled textarea.
  const typed = '{\n  "pbp": 1,\n  "id": "typed in",\n  "files": {"read": ["/usr", "/etc"], "write": ["/tmp"]},\n  "network": "none",\n  "process": {"no_new_privs": true, "max_pids": 64}\n}\n';
  await page.click("#policy");
  await page.send("Input.insertText", { text: typed });
  let s = await settle("the hash of the typed policy");
  expectBinary("typed policy", Buffer.from(typed), s);
  if (s.verdict !== 'Valid pbp 1 policy "typed in"') fail(`ui typed policy: verdict ${JSON.stringify(s.verdict)}`);
  if (s.copyDisabled) fail("ui typed policy: the copy button is disabled");
  // Its write path /tmp: check's warning, shown under the verdict in a list with an accessible name.
  const tc = binaryCheck(tmpFile(Buffer.from(typed), "typed.json"));
  if (!tc.valid || tc.warnings.length !== 1 || JSON.stringify(tc.warnings) !== JSON.stringify(s.warnings) || !s.warningsAfterVerdict)
    fail(`ui typed policy: the page shows the warnings ${JSON.stringify(s.warnings)} (under the verdict: ${s.warningsAfterVerdict}), sharness-exec check ${JSON.stringify(tc)}`);
  const wax = (await page.send("Accessibility.getPartialAXTree", { nodeId: await page.nodeId("#warnings"), fetchRelatives: false })).nodes[0];
  if (wax.role?.value !== "list" || wax.name?.value !== "Warnings of sharness-exec check")
    fail(`ui typed policy: the warnings are a ${JSON.stringify(wax.role)} named ${JSON.stringify(wax.name)}, not a list named "Warnings of sharness-exec check"`);

  // 2. The copy button puts the shown hash on the clipboard (or selects it).
  await page.send("Browser.grantPermissions", { permissions: ["clipboardReadWrite", "clipboardSanitizedWrite"] }).catch(() => {});
  await page.click("#copy");
  const copied = await page.waitFor(() => document.getElementById("copy-note").textContent, "the copy note");
  const clip = await page.call(async () => {
    try { return { text: await navigator.clipboard.readText() }; } catch (e) { return { error: String(e), selection: String(getSelection()) }; }
  });
  if (clip.text !== undefined ? clip.text !== s.hash : clip.selection !== s.hash)
    fail(`ui copy: the note says ${JSON.stringify(copied)}, the clipboard holds ${JSON.stringify(clip)}, the hash shown is ${s.hash}`);
  else note(`ui copy: ${clip.text !== undefined ? "the clipboard holds the hash" : "clipboard refused (" + clip.error + "), the hash is selected"}`);

  // 3. Replace the text with a policy that has problems: the same lines as `sharness-exec check`.
  const wrong = '{"pbp":2,"id":"","files":{"read":["tmp","/a/../b"],"exec":7},"network":"all","process":{"no_new_privs":false},"extra":1}';
  await page.call(() => document.getElementById("policy").select());
  await page.send("Input.insertText", { text: wrong });
  await page.waitFor(() => document.getElementById("problems"), "the problem list");
  s = await shown();
  expectBinary("policy with problems", Buffer.from(wrong), s);
  const bc = binaryCheck(tmpFile(Buffer.from(wrong), "wrong.json"));
  if (bc.error) fail(`ui policy with problems: sharness-exec check: ${bc.error}`);
  else if (JSON.stringify(bc.problems) !== JSON.stringify(s.problems))
    fail(`ui policy with problems: the page lists ${JSON.stringify(s.problems)}, sharness-exec check ${JSON.stringify(bc.problems || bc)}`);
  if (s.verdict !== `Not a valid pbp 1 policy: ${s.problems.length} problems`) fail(`ui policy with problems: verdict ${JSON.stringify(s.verdict)}`);

  // 4. Text that is not JSON: refused, with the reason.
  await page.call(() => document.getElementById("policy").select());
  await page.send("Input.insertText", { text: '{"a": 1.0}' });
  await page.waitFor(() => document.getElementById("reason"), "the refusal");
  s = await shown();
  expectBinary("typed float", Buffer.from('{"a": 1.0}'), s);
  if (!s.copyDisabled) fail("ui typed float: the copy button is enabled with no hash shown");
  if (!/^a: not an integer/.test(s.reason || "")) fail(`ui typed float: reason ${JSON.stringify(s.reason)}`);

  // 5. Choose files with the file input: the bytes on disk are what is hashed.
  const files = [
    ["with a BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(HELLO)]), "refused"],
    ["not UTF-8", Buffer.from('{"pbp":1,"id":"caf\xe9"}', "latin1"), "refused"],
    ["CRLF and tabs", Buffer.from(HELLO.replace(/,/g, ",\r\n\t")), "hash"],
  ];
  const input = await page.nodeId("#file");
  for (const [label, bytes, want] of files) {
    const f = tmpFile(bytes, "chosen.json");
    await page.call(() => { document.getElementById("result").replaceChildren(); });
    await page.send("DOM.setFileInputFiles", { files: [f], nodeId: input });
    s = await settle(`the verdict on the chosen file (${label})`);
    expectBinary(`file input, ${label}`, bytes, s);
    if ((s.hash ? "hash" : "refused") !== want) fail(`ui file input, ${label}: expected ${want}, the page shows ${s.result.trim()}`);
    if (!s.result.includes("chosen.json")) fail(`ui file input, ${label}: the result does not name the file: ${s.result.trim()}`);
  }

  // 6. Drop a file on the drop area.
  const dropped = Buffer.from(' {"pbp":1,"id":"dropped","network":{"connect_tcp_ports":[443]},"process":{"no_new_privs":true}} ');
  const df = tmpFile(dropped, "dropped.json");
  await page.call(() => { document.getElementById("result").replaceChildren(); });
  const at = await page.centre("#policy");
  const data = { items: [], files: [df], dragOperationsMask: 1 };
  for (const type of ["dragEnter", "dragOver", "drop"])
    await page.send("Input.dispatchDragEvent", { type, x: at.x, y: at.y, data });
  s = await settle("the verdict on the dropped file");
  expectBinary("dropped file", dropped, s);
  if (s.verdict !== 'Valid pbp 1 policy "dropped"' || !s.result.includes("dropped.json"))
    fail(`ui dropped file: the page shows ${s.result.trim()}`);

  // 7. The screenshot, with a policy loaded.
  await page.call(() => document.getElementById("hello-load").scrollIntoView());
  await page.click("#hello-load");
  await page.waitFor((h) => { const e = document.getElementById("hash"); return e && document.getElementById("hello-published").textContent === e.textContent; }, "the hello policy loaded above");
  await page.call(() => window.scrollTo(0, 0));
  const { contentSize } = await page.send("Page.getLayoutMetrics");
  const shot = await page.send("Page.captureScreenshot", {
    format: "png", captureBeyondViewport: true,
    clip: { x: 0, y: 0, width: 1000, height: Math.ceil(contentSize.height), scale: 1 },
  });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(path.join(ARTIFACTS, "policy-hash.png"), Buffer.from(shot.data, "base64"));
  note(`ui: screenshot in ${path.join(ARTIFACTS, "policy-hash.png")}`);
  if (page.errors.length) fail(`ui: errors in the page: ${page.errors.join("; ")}`);
}

// The hello policy and hash that the page shows, against the binary.
async function sectionHello(browser) {
  const page = await openPage(browser);
  const shown = await page.call(() => ({
    policy: document.getElementById("hello-policy").textContent,
    hash: document.getElementById("hello-published").textContent,
    computed: document.getElementById("hello-hash").textContent,
  }));
  if (shown.computed !== shown.hash + " (the same)")
    fail(`hello: the page computes ${JSON.stringify(shown.computed)} for the policy it publishes as ${shown.hash}`);
  if (shown.policy !== HELLO) fail(`hello: the page shows ${JSON.stringify(shown.policy)}, not the hello policy`);
  const f = tmpFile(Buffer.from(shown.policy), "hello.json");
  const b = binaryHash(f);
  if (b.error || b.hash !== shown.hash) fail(`hello: the page shows ${shown.hash}, sharness-exec hash gives ${verdict(b)}`);
  const c = binaryCheck(f);
  if (!c.valid || c.id !== "sharness-exec-hello") fail(`hello: sharness-exec check says ${JSON.stringify(c)}`);
  // `sharness-exec hello` names the hash of the policy it runs under.
  const h = spawnSync(SHARNESS_EXEC, ["hello"], { encoding: "utf8", timeout: 60000 });
  const all = (h.stdout || "") + (h.stderr || "");
  const m = all.match(/sha256:[0-9a-f]{64}/);
  if (!m || m[0] !== shown.hash)
    fail(`hello: sharness-exec hello (status ${h.status}) ${m ? "names " + m[0] : "names no hash"}; the page shows ${shown.hash}`);
  note(`hello: ${shown.hash}`);
}

// The page itself: self-contained, secure context, accessible.
async function sectionPage(browser) {
  const html = fs.readFileSync(PAGE_FILE, "utf8");
  for (const [re, what] of [[/<script[^>]*\bsrc=/i, "an external script"], [/<link\b/i, "a <link>"],
    [/@import|url\(/i, "a CSS import or url()"], [/<(img|iframe|object|embed|audio|video)\b/i, "an embedded resource"],
    [/\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon/, "code that talks to the network"]])
    if (re.test(html)) fail(`page: the HTML has ${what}`);

  const page = await openPage(browser, { network: true });
  if (page.requests.length !== 1 || page.requests[0] !== PAGE)
    fail(`page: requests made while loading: ${JSON.stringify(page.requests)} (only the page itself is expected)`);
  const env = await page.call(() => ({ secure: window.isSecureContext, subtle: !!(window.crypto && crypto.subtle),
    api: typeof window.policyHash + " " + typeof window.policyCheck }));
  if (!env.secure || !env.subtle) fail(`page: file:// is not a secure context with crypto.subtle here: ${JSON.stringify(env)}`);
  if (env.api !== "function function") fail(`page: window.policyHash, window.policyCheck: ${env.api}`);

  // Accessible names and roles, as the browser's accessibility tree has them.
  await page.send("Accessibility.enable");
  const query = async (accessibleName, role) => {
    const { root } = await page.send("DOM.getDocument", { depth: 0 });
    const r = await page.send("Accessibility.queryAXTree", { backendNodeId: root.backendNodeId, accessibleName, role });
    return r.nodes.filter((n) => !n.ignored);
  };
  const backend = async (sel) => (await page.send("DOM.describeNode", { nodeId: await page.nodeId(sel) })).node.backendNodeId;
  for (const [name, role, sel] of [["Policy JSON", "textbox", "#policy"], ["Copy hash", "button", "#copy"],
    ["Load it above", "button", "#hello-load"], ["Result", "status", "#result"]]) {
    const nodes = await query(name, role);
    const want = await backend(sel);
    if (!nodes.some((n) => n.backendDOMNodeId === want)) fail(`page: no ${role} named ${JSON.stringify(name)} is ${sel} (found ${nodes.length})`);
  }
  const ax = async (sel) => (await page.send("Accessibility.getPartialAXTree", { nodeId: await page.nodeId(sel), fetchRelatives: false })).nodes;
  const file = (await ax("#file"))[0];
  if (file.name?.value !== "Policy file") fail(`page: the file input's accessible name is ${JSON.stringify(file.name)}, not "Policy file"`);
  const nodes = await ax("#result");
  const live = (nodes[0].properties || []).find((p) => p.name === "live");
  if (!live || live.value.value !== "polite") fail(`page: the result region is not a polite live region: ${JSON.stringify(nodes[0].properties)}`);
  if (page.errors.length) fail(`page: errors in the page: ${page.errors.join("; ")}`);
  note(`page: ${page.requests.length} request, secure context, accessible names checked`);
}

const SECTIONS = { shared: sectionShared, suite: sectionSuite, vectors: sectionVectors, check: sectionCheck,
  ui: sectionUI, hello: sectionHello, page: sectionPage };

async function main(names) {
  if (!names.length || names.some((n) => !SECTIONS[n])) {
    console.error(`usage: node policy-hash.test.mjs ${Object.keys(SECTIONS).join("|")}...`);
    return 2;
  }
  // Whatever happens in the browser, never hang make check.
  let browser = null;
  const watchdog = setTimeout(() => {
    console.log("not ok: no result within 5 minutes");
    if (browser) browser.child.kill("SIGKILL");
    process.exit(1);
  }, 300000);
  watchdog.unref();
  try {
    browser = await Browser.launch();
    note(`${browser.version}, page ${PAGE}, binary ${SHARNESS_EXEC}`);
    for (const n of names) await SECTIONS[n](browser);
  } catch (e) {
    fail(`${e.stack || e}`);
  } finally {
    if (browser) await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  for (const f of failures) console.log("not ok: " + f);
  console.log(failures.length ? `${failures.length} disagreement(s)` : "all agree");
  return failures.length ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
