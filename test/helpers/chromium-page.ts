// Headless Chromium driven over the DevTools protocol: open a page at a window width, evaluate script in it
// (computed styles, element boxes), list its Content-Security-Policy violations, take a screenshot.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM } from "./chromium.js";

interface Message {
  id?: number;
  method?: string;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** Collects the page's CSP violations before any of its own code runs (a script added this way is not subject to the page's policy). */
const WATCH_VIOLATIONS = `window.__violations = []; document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`;

export interface OpenPage {
  /** The value of `expression` (returned by value: JSON-like). */
  evaluate<T>(expression: string): Promise<T>;
  /** "directive blocked-uri" of each Content-Security-Policy violation so far. */
  violations(): Promise<string[]>;
  /** A PNG of the whole page, not only the window. */
  screenshot(): Promise<Buffer>;
}

export interface Browser {
  /** Opens `url` in a new tab of `width` x `height` CSS pixels, once its load event has fired. */
  open(url: string, width: number, height: number): Promise<OpenPage>;
  close(): Promise<void>;
}

/** Starts headless Chromium with a fresh profile and a DevTools port of its own choosing (port 0). */
export async function startBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "chromium-cdp-"));
  const child: ChildProcess = spawn(
    CHROMIUM,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--hide-scrollbars",
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    // A process group of its own: close() kills the browser and its helpers at once, so none writes to the profile after.
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const endpoint = await new Promise<string>((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`chromium gave no DevTools address: ${err.slice(-500)}`)), 30_000);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      err += chunk;
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", () => reject(new Error(`chromium exited: ${err.slice(-500)}`)));
  });
  const socket = new WebSocket(endpoint);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error("could not connect to chromium's DevTools")), { once: true });
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  const listeners = new Set<(m: Message) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as Message;
    if (message.id !== undefined) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result ?? {});
    } else for (const listener of listeners) listener(message);
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }));
    });

  return {
    async open(url, width, height) {
      const { targetId } = (await send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
      const { sessionId } = (await send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
      const call = (method: string, params: Record<string, unknown> = {}) => send(method, params, sessionId);
      await call("Page.enable");
      await call("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: width < 600 });
      await call("Page.addScriptToEvaluateOnNewDocument", { source: WATCH_VIOLATIONS });
      const loaded = new Promise<void>((resolve) => {
        const listener = (m: Message) => {
          if (m.sessionId === sessionId && m.method === "Page.loadEventFired") {
            listeners.delete(listener);
            resolve();
          }
        };
        listeners.add(listener);
      });
      await call("Page.navigate", { url });
      await loaded;
      const evaluate = async <T>(expression: string): Promise<T> => {
        const answer = (await call("Runtime.evaluate", { expression, returnByValue: true })) as {
          result: { value?: unknown };
          exceptionDetails?: { text: string };
        };
        if (answer.exceptionDetails !== undefined) throw new Error(`in the page: ${answer.exceptionDetails.text}`);
        return answer.result.value as T;
      };
      return {
        evaluate,
        violations: () => evaluate<string[]>("window.__violations"),
        async screenshot() {
          const { data } = (await call("Page.captureScreenshot", { format: "png", captureBeyondViewport: true })) as { data: string };
          return Buffer.from(data, "base64");
        },
      };
    },
    async close() {
      socket.close();
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      await exited;
      // A helper may still be closing its files in the profile for a moment after the kill: Node retries ENOTEMPTY.
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
