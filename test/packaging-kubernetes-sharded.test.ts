// The sharded Kubernetes variant: a StatefulSet whose pod names are the shards, a headless Service
// naming each replica, a ScrapeConfig asking each replica's /sd, all agreeing on the number of shards.

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseShard } from "../src/config/values.js";
import { MAIN } from "./helpers/child.js";
import { dig, readRepoFile, readYaml, readYamlDocuments, repoPath } from "./helpers/yaml-files.js";

const run = promisify(execFile);
const DIR = "deploy/kubernetes/statefulset-sharded";

type Obj = Record<string, unknown>;

const manifestFiles = readdirSync(repoPath(DIR)).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
const objects = manifestFiles.flatMap((file) => readYamlDocuments(`${DIR}/${file}`) as Obj[]);
const kustomization = readYaml(`${DIR}/kustomization.yaml`) as Obj;

function one(kind: string, from: Obj[] = objects): Obj {
  const found = from.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0]!;
}

const statefulSet = one("StatefulSet");
const service = one("Service");
const scrapeConfig = one("ScrapeConfig");
const configMap = one("ConfigMap");
const podSpec = dig(statefulSet, "spec", "template", "spec") as Obj;
const container = ((podSpec.containers ?? []) as Obj[])[0]!;
const env = (container.env ?? []) as Obj[];
const replicas = Number(dig(statefulSet, "spec", "replicas"));
const name = String(dig(statefulSet, "metadata", "name"));
const namespace = String(kustomization.namespace);
const podNames = Array.from({ length: replicas }, (_, i) => `${name}-${i}`);

const envValue = (variable: string) => env.find((e) => e.name === variable);

describe("the StatefulSet", () => {
  it("passes its pod's name as TRADING_SHARD and its replicas as TRADING_TOTAL_SHARDS", () => {
    expect(replicas).toBeGreaterThan(1);
    expect(dig(envValue("TRADING_SHARD"), "valueFrom", "fieldRef", "fieldPath")).toBe("metadata.name");
    expect(Number(dig(envValue("TRADING_TOTAL_SHARDS"), "value"))).toBe(replicas);
    // The names the StatefulSet gives its pods are the shards 0 .. replicas-1, as the exporter reads them.
    expect(podNames.map((pod) => parseShard(pod, "TRADING_SHARD"))).toEqual(podNames.map((_, i) => i));
    expect(dig(statefulSet, "spec", "podManagementPolicy")).toBe("Parallel");
  });

  it("is hardened, probed and mounted exactly as the Deployment is", () => {
    const deployment = one("Deployment", readYamlDocuments("deploy/kubernetes/deployment.yaml") as Obj[]);
    const base = dig(deployment, "spec", "template", "spec") as Obj;
    const baseContainer = ((base.containers ?? []) as Obj[])[0]!;
    for (const key of ["securityContext", "automountServiceAccountToken", "enableServiceLinks", "terminationGracePeriodSeconds"]) {
      expect(podSpec[key], key).toEqual(base[key]);
    }
    for (const key of ["image", "args", "ports", "securityContext", "livenessProbe", "readinessProbe", "volumeMounts"]) {
      expect(container[key], key).toEqual(baseContainer[key]);
    }
    expect(env.some((e) => dig(e, "valueFrom", "secretKeyRef") !== undefined)).toBe(false);
    expect(dig(podSpec, "volumes", 0, "projected", "defaultMode")).toBe(0o440);
  });
});

/** A Kubernetes quantity in MiB ("400Mi", "1Gi") or cores ("500m", "2"). */
const mebibytes = (q: unknown) => Number(/^(\d+)Mi$/.exec(String(q))?.[1] ?? Number(/^(\d+)Gi$/.exec(String(q))?.[1]) * 1024);
const cores = (q: unknown) => (String(q).endsWith("m") ? Number.parseInt(String(q), 10) / 1000 : Number(q));
/** The largest figure of a cell of the docs' tables: "0.38 (0.68)" (average and busiest), "375-385 MB", "1,000". */
const largest = (cell: string) => Math.max(...(cell.replaceAll(",", "").match(/\d+(?:\.\d+)?/g) ?? []).map(Number));

describe("the StatefulSet's resources", () => {
  it("cover the sizing table's row for the accounts per replica it says it is sized for, the venue 150 ms away, every target up", () => {
    const sizedFor = /sized for ([\d,]+) accounts per replica/i.exec(readRepoFile(`${DIR}/statefulset.yaml`))?.[1];
    expect(sizedFor, "statefulset.yaml says the accounts per replica it is sized for").toBeDefined();
    const lines = readRepoFile("docs/performance.md").split("\n");
    const header = lines.findIndex((l) => l.startsWith("| accounts per replica |"));
    expect(header, "docs/performance.md has a sizing table").toBeGreaterThan(0);
    const columns = lines[header]!.split("|").map((c) => c.trim());
    const rows = lines
      .slice(
        header + 2,
        lines.findIndex((l, i) => i > header && !l.startsWith("|")),
      )
      .map((l) => l.split("|").map((c) => c.trim()));
    // A venue is not on loopback: the size follows from the row measured with the venue 150 ms away, at the ScrapeConfig's interval.
    const row = rows.find(
      (r) =>
        r[1] === sizedFor &&
        r[2] === String(replicas) &&
        r[columns.indexOf("venue latency")] === "150 ms" &&
        r[columns.indexOf("scrape interval")] === String(dig(scrapeConfig, "spec", "scrapeInterval")).replace(/s$/, " s") &&
        r[columns.indexOf("all up after interval 1")] === "yes",
    );
    expect(
      row,
      `a row of ${sizedFor} accounts per replica over ${replicas} replicas, the venue 150 ms away at the ScrapeConfig's interval, with every target up`,
    ).toBeDefined();
    const resources = dig(container, "resources") as Obj;
    expect(cores(dig(resources, "requests", "cpu"))).toBeGreaterThanOrEqual(largest(row![columns.indexOf("cores (busiest interval)")]!));
    expect(mebibytes(dig(resources, "requests", "memory"))).toBeGreaterThanOrEqual(largest(row![columns.indexOf("memory (peak RSS)")]!));
    expect(mebibytes(dig(resources, "limits", "memory"))).toBeGreaterThan(mebibytes(dig(resources, "requests", "memory")));
  });
});

describe("the config file", () => {
  it("sets no scrape limit: the shipped defaults serve the accounts per replica it is sized for", () => {
    const file = parse(String(dig(configMap, "data", "trading-exporter.yml"))) as Obj;
    expect(dig(file, "scrape")).toBeUndefined();
  });
});

describe("the headless Service and the ScrapeConfig", () => {
  it("give each replica a DNS name, and the ScrapeConfig asks exactly those for /sd", () => {
    expect(dig(service, "spec", "clusterIP")).toBe("None");
    expect(dig(statefulSet, "spec", "serviceName")).toBe(dig(service, "metadata", "name"));
    const podLabels = dig(statefulSet, "spec", "template", "metadata", "labels") as Record<string, string>;
    for (const [k, v] of Object.entries(dig(service, "spec", "selector") as Record<string, string>)) expect(podLabels[k], k).toBe(v);
    expect(dig(service, "spec", "ports", 0)).toMatchObject({ name: "metrics", port: 9842, targetPort: "metrics" });
    const urls = ((dig(scrapeConfig, "spec", "httpSDConfigs") ?? []) as Obj[]).map((c) => c.url);
    expect(urls).toEqual(podNames.map((pod) => `http://${pod}.${String(dig(service, "metadata", "name"))}.${namespace}.svc:9842/sd`));
  });

  it("name the job so the shipped rules' TradingExporterDown selects it", () => {
    const job = ((dig(scrapeConfig, "spec", "relabelings") ?? []) as Obj[]).find((r) => r.targetLabel === "job")?.replacement;
    const selector = /up\{job=~"([^"]+)"\}/.exec(readRepoFile("prometheus/rules/trading.rules.yml"))?.[1];
    expect(String(job)).toMatch(new RegExp(`^(?:${selector})$`));
  });
});

describe("the config file, from the ConfigMap", () => {
  const root = mkdtempSync(join(tmpdir(), "te-k8s-shards-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("passes --config.check as every replica, and splits its accounts over all of them; a replica past the last is refused", async () => {
    const configArg = ((container.args ?? []) as string[]).find((a) => a.startsWith("--config.file="))!.slice("--config.file=".length);
    const configPath = join(root, configArg);
    mkdirSync(join(dirname(configPath), "secrets"), { recursive: true });
    writeFileSync(configPath, String(dig(configMap, "data", "trading-exporter.yml")));
    writeFileSync(join(dirname(configPath), "secrets", "api-key"), "test-venue-key\n");
    const check = (pod: string) =>
      run(process.execPath, [MAIN, `--config.file=${configPath}`, "--config.check"], {
        env: { PATH: process.env.PATH ?? "", TRADING_SHARD: pod, TRADING_TOTAL_SHARDS: String(dig(envValue("TRADING_TOTAL_SHARDS"), "value")) },
        timeout: 20_000,
      });
    const served: number[] = [];
    for (const pod of podNames) {
      const { stdout } = await check(pod);
      served.push(Number(/serves (\d+) of/.exec(stdout)?.[1]));
    }
    expect(
      served.every((n) => n > 0),
      `accounts per shard: ${served.join(", ")}`,
    ).toBe(true);
    await expect(check(`${name}-${replicas}`)).rejects.toMatchObject({ stderr: expect.stringContaining("TRADING_SHARD: must be below TRADING_TOTAL_SHARDS") });
  });
});

describe("kustomization.yaml", () => {
  it("lists every manifest of the folder, and only those", () => {
    expect([...(kustomization.resources as string[])].sort()).toEqual([...manifestFiles].sort());
  });
});
