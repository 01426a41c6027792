// --web.external-url and --web.route-prefix with Prometheus's meanings, on the built exporter: every path under the
// prefix (the external URL's path by default), 404 outside it, the prefix itself sent to its folder, and /sd's
// targets at the external URL, or where the request reached the exporter.

import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routePrefix } from "../src/config/types.js";
import { parseExternalUrl, parseRoutePrefix } from "../src/config/values.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { startExporterChild } from "./helpers/child.js";
import { simEnv } from "./helpers/stack.js";

let venue: RunningSimulator;
beforeAll(async () => {
  venue = await startSimulator({ seed: 7, tickMs: 0, apiKey: "sim-test-key" });
});
afterAll(() => venue.close());

async function get(url: string | URL, init?: RequestInit): Promise<{ status: number; text: string; location: string | null }> {
  const res = await fetch(url, { redirect: "manual", ...init });
  return { status: res.status, text: await res.text(), location: res.headers.get("location") };
}

/** The exporter's own address (scheme, host, port), whatever path its listening line names. */
const origin = (url: string) => new URL(url).origin;

describe("the settings", () => {
  it("take Prometheus's forms: the prefix trimmed of slashes, the external URL ending in /, and the prefix from its path", () => {
    expect(["trading", "/trading/", "//trading", "/a/b/"].map((p) => parseRoutePrefix(p, "k"))).toEqual(["/trading", "/trading", "/trading", "/a/b"]);
    expect(["", "/"].map((p) => parseRoutePrefix(p, "k"))).toEqual(["/", "/"]);
    expect(() => parseRoutePrefix("/a b", "--web.route-prefix")).toThrowError("--web.route-prefix: expected a path such as /trading");
    expect(parseExternalUrl("https://proxy.example/trading", "k").href).toBe("https://proxy.example/trading/");
    expect(() => parseExternalUrl("ftp://x/", "--web.external-url")).toThrowError("--web.external-url: expected an http:// or https:// URL");
    expect(() => parseExternalUrl("http://u:p@x/", "k")).toThrowError("k: must not carry credentials");
    const external = parseExternalUrl("http://host/trading/", "k");
    expect(routePrefix({ externalUrl: external, routePrefix: undefined })).toBe("/trading");
    expect(routePrefix({ externalUrl: external, routePrefix: "/" })).toBe("/");
    expect(routePrefix({ externalUrl: parseExternalUrl("http://host", "k"), routePrefix: undefined })).toBe("/");
    expect(routePrefix({ externalUrl: undefined, routePrefix: undefined })).toBe("/");
  });
});

describe("--web.external-url=http://host/trading/ alone, straight at the exporter", () => {
  it("serves every path under /trading and none outside it", async () => {
    const exporter = await startExporterChild(simEnv(venue.url), ["--web.external-url=http://host/trading/"]);
    expect(exporter.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/trading\/$/);
    const at = origin(exporter.url);
    const metrics = await get(`${at}/trading/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^trading_up\{account="sim"\} 1$/m);
    expect((await get(`${at}/metrics`)).status).toBe(404);
    for (const path of [
      "/trading/",
      "/trading/-/healthy",
      "/trading/-/ready",
      "/trading/status.css",
      "/trading/runbooks/",
      "/trading/sd",
      "/trading/exporter-metrics",
    ]) {
      expect((await get(`${at}${path}`)).status, path).toBe(200);
    }
    expect((await get(`${at}/trading/probe?target=sim`)).status).toBe(200);
    for (const path of ["/", "/-/healthy", "/-/ready", "/status.css", "/runbooks/", "/sd", "/probe?target=sim", "/tradingx/metrics"]) {
      expect((await get(`${at}${path}`)).status, path).toBe(404);
    }
    // The prefix itself goes to its folder, as /runbooks does, so the page's relative links resolve.
    expect(await get(`${at}/trading`)).toMatchObject({ status: 301, location: "/trading/" });
    expect(await get(`${at}/trading/runbooks`)).toMatchObject({ status: 301, location: "/trading/runbooks/" });
  });

  it("gives /sd targets at the external URL: its scheme, host and path", async () => {
    const exporter = await startExporterChild(simEnv(venue.url), ["--web.external-url=https://proxy.example:8443/trading"]);
    const groups = JSON.parse((await get(`${origin(exporter.url)}/trading/sd`)).text) as Array<{ targets: string[]; labels: Record<string, string> }>;
    expect(groups[0]).toMatchObject({
      targets: ["proxy.example:8443"],
      labels: { __scheme__: "https", __metrics_path__: "/trading/probe", __param_target: "sim", instance: "sim" },
    });
  });
});

describe("--web.route-prefix", () => {
  it("overrides the external URL's path, and without an external URL /sd names the request's address under the prefix", async () => {
    const exporter = await startExporterChild(simEnv(venue.url), ["--web.route-prefix=/desk/", "--web.external-url=http://host/trading/"]);
    const at = origin(exporter.url);
    expect((await get(`${at}/desk/metrics`)).status).toBe(200);
    expect((await get(`${at}/trading/metrics`)).status).toBe(404);

    const plain = await startExporterChild(simEnv(venue.url), ["--web.route-prefix=desk"]);
    const reached = new URL(plain.url);
    const groups = JSON.parse((await get(`${reached.origin}/desk/sd`)).text) as Array<{ targets: string[]; labels: Record<string, string> }>;
    expect(groups[0]).toMatchObject({ targets: [reached.host], labels: { __scheme__: "http", __metrics_path__: "/desk/probe" } });
    // fetch sends its own Host: node:http sends the one a proxy would pass on.
    const viaHost = await new Promise<string>((resolve, reject) => {
      request({ host: reached.hostname, port: reached.port, path: "/desk/sd", headers: { host: "exporter.example:9842" } }, (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve(body));
      })
        .on("error", reject)
        .end();
    });
    expect((JSON.parse(viaHost) as Array<{ targets: string[] }>)[0]?.targets).toEqual(["exporter.example:9842"]);
  });

  it("carries POST /-/reload under the prefix too", async () => {
    const exporter = await startExporterChild(simEnv(venue.url), ["--web.route-prefix=/desk"]);
    const at = origin(exporter.url);
    expect((await get(`${at}/desk/-/reload`, { method: "POST" })).status).toBe(200);
    expect((await get(`${at}/-/reload`, { method: "POST" })).status).toBe(404);
  });
});
