// A small DevTools-protocol client for Debian's headless Chromium, over
// --remote-debugging-pipe (fd 3 carries our commands, fd 4 the replies and
// events, each message NUL-terminated JSON). No npm package, no browser
// download, no network socket: the browser is /usr/bin/chromium (or
// $CHROMIUM) with a fresh profile that is removed afterwards.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
  "--mute-audio", "--hide-scrollbars", "--disable-dev-shm-usage", "--remote-debugging-pipe",
];

export class Browser {
  static async launch() {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "policy-hash-chromium-"));
    const child = spawn(CHROMIUM, [...ARGS, `--user-data-dir=${profile}`, "about:blank"], {
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    });
    const b = new Browser(child, profile);
    await b.send("Browser.getVersion").then((v) => { b.version = v.product; });
    return b;
  }

  constructor(child, profile) {
    this.child = child;
    this.profile = profile;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    this.stderr = "";
    this.exited = null;
    let buf = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (s) => { this.stderr = (this.stderr + s).slice(-8000); });
    child.stdio[4].setEncoding("utf8");
    child.stdio[4].on("data", (s) => {
      buf += s;
      let end;
      while ((end = buf.indexOf("\0")) >= 0) {
        const msg = JSON.parse(buf.slice(0, end));
        buf = buf.slice(end + 1);
        this.dispatch(msg);
      }
    });
    child.stdio[3].on("error", () => {});
    child.on("exit", (code, signal) => {
      this.exited = signal || code;
      const err = new Error(`chromium exited (${this.exited}) before answering; its stderr ends with:\n${this.stderr}`);
      for (const { reject } of this.pending.values()) reject(err);
      this.pending.clear();
    });
    child.on("error", (e) => {
      for (const { reject } of this.pending.values()) reject(e);
      this.pending.clear();
    });
  }

  dispatch(msg) {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}${msg.error.data ? " (" + msg.error.data + ")" : ""}`));
      else p.resolve(msg.result);
      return;
    }
    for (const l of [...this.listeners])
      if (l.method === msg.method && l.sessionId === msg.sessionId) l.fn(msg.params);
  }

  send(method, params = {}, sessionId) {
    if (this.exited !== null) return Promise.reject(new Error(`chromium has exited (${this.exited})`));
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.child.stdio[3].write(JSON.stringify(msg) + "\0");
    });
  }

  on(method, sessionId, fn) {
    const l = { method, sessionId, fn };
    this.listeners.push(l);
    return () => { this.listeners = this.listeners.filter((x) => x !== l); };
  }

  async newPage() {
    const { targetId } = await this.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    return new Page(this, sessionId);
  }

  async close() {
    if (this.exited === null) {
      const gone = new Promise((r) => this.child.once("exit", r));
      this.send("Browser.close").catch(() => {});
      const t = setTimeout(() => this.child.kill("SIGKILL"), 5000);
      await gone;
      clearTimeout(t);
    }
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

export class Page {
  constructor(browser, sessionId) {
    this.browser = browser;
    this.sessionId = sessionId;
  }

  send(method, params) { return this.browser.send(method, params, this.sessionId); }
  on(method, fn) { return this.browser.on(method, this.sessionId, fn); }

  once(method, timeoutMs = 30000) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => { off(); reject(new Error(`no ${method} within ${timeoutMs} ms`)); }, timeoutMs);
      const off = this.on(method, (p) => { clearTimeout(t); off(); resolve(p); });
    });
  }

  async goto(url) {
    await this.send("Page.enable");
    const loaded = this.once("Page.loadEventFired");
    const r = await this.send("Page.navigate", { url });
    if (r.errorText) throw new Error(`cannot open ${url}: ${r.errorText}`);
    await loaded;
  }

  // Run FN (a function, serialised by its source) in the page with ARGS
  // (JSON values); resolves with its (awaited) JSON result.
  async call(fn, ...args) {
    const r = await this.send("Runtime.evaluate", {
      expression: `(${fn})(...${JSON.stringify(args)})`,
      awaitPromise: true, returnByValue: true, userGesture: true,
    });
    if (r.exceptionDetails) {
      const e = r.exceptionDetails;
      throw new Error(`in the page: ${e.exception ? e.exception.description : e.text}`);
    }
    return r.result.value;
  }

  // Poll FN in the page until it returns something truthy.
  async waitFor(fn, what, timeoutMs = 10000, ...args) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.call(fn, ...args);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async nodeId(selector) {
    const { root } = await this.send("DOM.getDocument", { depth: 0 });
    const { nodeId } = await this.send("DOM.querySelector", { nodeId: root.nodeId, selector });
    if (!nodeId) throw new Error(`no element matches ${selector}`);
    return nodeId;
  }

  // The centre of the element SELECTOR, in CSS pixels of the viewport.
  async centre(selector) {
    return this.call((sel) => {
      const e = document.querySelector(sel);
      e.scrollIntoView({ block: "center" });
      const r = e.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }, selector);
  }

  async click(selector) {
    const { x, y } = await this.centre(selector);
    for (const type of ["mousePressed", "mouseReleased"])
      await this.send("Input.dispatchMouseEvent", { type, x, y, button: "left", clickCount: 1 });
  }
}
