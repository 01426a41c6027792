// The Kubernetes manifests: a hardened Deployment, the key as a file, ports and names that agree, and a PrometheusRule generated from the shipped rules.

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { amtool } from "./helpers/amtool.js";
import { MAIN } from "./helpers/child.js";
import { dig, parseDockerfile, readRepoFile, readYaml, readYamlDocuments, repoPath } from "./helpers/yaml-files.js";

const run = promisify(execFile);
const DIR = "deploy/kubernetes";

type Obj = Record<string, unknown>;

const manifestFiles = readdirSync(repoPath(DIR)).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
const objects = manifestFiles.flatMap((file) => readYamlDocuments(`${DIR}/${file}`) as Obj[]);

function one(kind: string): Obj {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`${DIR}: expected one ${kind}, found ${found.length}`);
  return found[0]!;
}

const deployment = one("Deployment");
const service = one("Service");
const serviceMonitor = one("ServiceMonitor");
const configMap = one("ConfigMap");
const podSpec = dig(deployment, "spec", "template", "spec") as Obj;
const containers = (podSpec.containers ?? []) as Obj[];
const container = containers[0]!;
const volumes = (podSpec.volumes ?? []) as Obj[];
const mounts = (container.volumeMounts ?? []) as Obj[];
const containerPorts = (container.ports ?? []) as Array<{ name?: string; containerPort: number }>;
const configArg = ((container.args ?? []) as string[]).find((a) => a.startsWith("--config.file="))?.slice("--config.file=".length);

/** A file a volume puts in the container: its path, and where its content comes from. */
interface ProjectedFile {
  path: string;
  from: "configMap" | "secret";
  name: string;
  key: string;
}

/** Every file the pod's mounted ConfigMap, Secret and projected volumes put in the container. */
function projectedFiles(): ProjectedFile[] {
  return mounts.flatMap((mount) => {
    const volume = volumes.find((v) => v.name === mount.name);
    if (volume === undefined) throw new Error(`volumeMount ${String(mount.name)} has no volume`);
    const sources: Obj[] = volume.projected ? ((dig(volume, "projected", "sources") ?? []) as Obj[]) : [volume];
    return sources.flatMap((source) => {
      const from = source.configMap ? "configMap" : source.secret ? "secret" : undefined;
      if (from === undefined) return [];
      const ref = source[from] as Obj;
      const name = String(ref.name ?? ref.secretName);
      const items = (ref.items ?? []) as Array<{ key: string; path: string }>;
      return items.map((item) => ({ path: posix.join(String(mount.mountPath), item.path), from, name, key: item.key }));
    });
  });
}

describe("the Deployment", () => {
  it("runs as a non-root numeric user with a read-only root, no privilege escalation and no capabilities", () => {
    expect(containers).toHaveLength(1);
    expect(dig(podSpec, "securityContext", "runAsNonRoot")).toBe(true);
    expect(Number(dig(podSpec, "securityContext", "runAsUser"))).toBeGreaterThan(0);
    expect(dig(podSpec, "securityContext", "seccompProfile", "type")).toBe("RuntimeDefault");
    expect(podSpec.automountServiceAccountToken).toBe(false);
    const security = container.securityContext as Obj;
    expect(security.readOnlyRootFilesystem).toBe(true);
    expect(security.allowPrivilegeEscalation).toBe(false);
    expect(dig(security, "capabilities", "drop")).toEqual(["ALL"]);
    expect(security.privileged ?? false).toBe(false);
  });

  it("uses the image's user and an image tagged with the package's version", () => {
    const user = parseDockerfile(readRepoFile("Dockerfile"))
      .filter((i) => i.keyword === "USER")
      .at(-1)!
      .args.split(":")[0];
    expect(String(dig(podSpec, "securityContext", "runAsUser"))).toBe(user);
    const version = (JSON.parse(readRepoFile("package.json")) as { version: string }).version;
    expect(container.image).toBe(`trading-exporter:${version}`);
  });

  it("probes liveness on /-/healthy and readiness on /-/ready, on the metrics port", () => {
    expect(dig(container, "livenessProbe", "httpGet", "path")).toBe("/-/healthy");
    expect(dig(container, "readinessProbe", "httpGet", "path")).toBe("/-/ready");
    for (const probe of ["livenessProbe", "readinessProbe"]) {
      const port = dig(container, probe, "httpGet", "port");
      expect(
        containerPorts.some((p) => p.name === port || p.containerPort === port),
        `${probe} port ${String(port)}`,
      ).toBe(true);
    }
  });

  it("requests CPU and memory and bounds memory", () => {
    expect(dig(container, "resources", "requests", "cpu")).toBeDefined();
    expect(dig(container, "resources", "requests", "memory")).toBeDefined();
    expect(dig(container, "resources", "limits", "memory")).toBeDefined();
  });

  it("mounts the venue key from a Secret as a file, readable by the pod's group only, and never puts it in the environment", () => {
    const secretFiles = projectedFiles().filter((f) => f.from === "secret");
    expect(secretFiles.length).toBeGreaterThan(0);
    for (const mount of mounts) expect(mount.readOnly, String(mount.name)).toBe(true);
    const envs = (container.env ?? []) as Obj[];
    expect(
      envs.some((e) => dig(e, "valueFrom", "secretKeyRef") !== undefined),
      "no secret in env",
    ).toBe(false);
    expect(container.envFrom).toBeUndefined();
    const mode = volumes.map((v) => dig(v, "projected", "defaultMode") ?? dig(v, "secret", "defaultMode")).find((m) => m !== undefined);
    expect(mode, "0440").toBe(0o440);
    expect(dig(podSpec, "securityContext", "fsGroup")).toBe(dig(podSpec, "securityContext", "runAsGroup"));
  });

  describe("its config file, from the ConfigMap", () => {
    const root = mkdtempSync(join(tmpdir(), "te-k8s-"));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it("names the Secret's file as key_file and passes --config.check in the container's file layout", async () => {
      expect(configArg, "--config.file").toBeDefined();
      const files = projectedFiles();
      const configFile = files.find((f) => f.path === configArg);
      expect(configFile, `${configArg} comes from a ConfigMap`).toMatchObject({ from: "configMap", name: dig(configMap, "metadata", "name") });
      const config = String(dig(configMap, "data", configFile!.key));
      const keyFiles = [...config.matchAll(/key_file:\s*(\S+)/g)].map((m) => posix.resolve(posix.dirname(configArg!), m[1]!));
      expect(keyFiles.length).toBeGreaterThan(0);
      for (const keyFile of keyFiles) expect(files.find((f) => f.path === keyFile)?.from, `${keyFile} is a Secret's file`).toBe("secret");
      for (const file of files) {
        const into = join(root, file.path);
        mkdirSync(dirname(into), { recursive: true });
        writeFileSync(into, file.from === "configMap" ? String(dig(configMap, "data", file.key)) : "test-venue-key\n");
      }
      const { stdout } = await run(process.execPath, [MAIN, `--config.file=${join(root, configArg!)}`, "--config.check"], { timeout: 20_000 });
      expect(stdout).toMatch(/^configuration OK: \d+ account\(s\)/);
    });
  });
});

describe("the Service and the ServiceMonitor", () => {
  const servicePort = ((dig(service, "spec", "ports") ?? []) as Array<{ name: string; port: number; targetPort: string | number }>)[0]!;

  it("serve port 9842, named metrics, the container's port and the image's EXPOSE", () => {
    expect(servicePort).toMatchObject({ name: "metrics", port: 9842 });
    const target = containerPorts.find((p) => p.name === servicePort.targetPort || p.containerPort === servicePort.targetPort);
    expect(target?.containerPort).toBe(9842);
    const exposed = parseDockerfile(readRepoFile("Dockerfile"))
      .filter((i) => i.keyword === "EXPOSE")
      .flatMap((i) => i.args.split(/\s+/));
    expect(exposed).toContain(String(target?.containerPort));
  });

  it("select the pods, and the ServiceMonitor scrapes the Service's named port on /metrics", () => {
    const podLabels = dig(deployment, "spec", "template", "metadata", "labels") as Record<string, string>;
    for (const [k, v] of Object.entries(dig(service, "spec", "selector") as Record<string, string>)) expect(podLabels[k], k).toBe(v);
    const serviceLabels = dig(service, "metadata", "labels") as Record<string, string>;
    for (const [k, v] of Object.entries(dig(serviceMonitor, "spec", "selector", "matchLabels") as Record<string, string>)) expect(serviceLabels[k], k).toBe(v);
    expect(serviceMonitor.apiVersion).toBe("monitoring.coreos.com/v1");
    const endpoints = dig(serviceMonitor, "spec", "endpoints") as Obj[];
    expect(endpoints.map((e) => e.port)).toEqual([servicePort.name]);
    expect(endpoints[0]!.path ?? "/metrics").toBe("/metrics");
  });

  it("give a job label that the rules' TradingExporterDown selects, and stop after the scrape timeout", () => {
    // Without jobLabel, prometheus-operator names the job after the Service.
    expect(dig(serviceMonitor, "spec", "jobLabel")).toBeUndefined();
    const job = String(dig(service, "metadata", "name"));
    const rules = readRepoFile("prometheus/rules/trading.rules.yml");
    const selector = /up\{job=~"([^"]+)"\}/.exec(rules)?.[1];
    expect(selector).toBeDefined();
    expect(job).toMatch(new RegExp(`^(?:${selector})$`));
    const timeout = Number.parseFloat(String(dig(serviceMonitor, "spec", "endpoints", 0, "scrapeTimeout")));
    expect(Number(podSpec.terminationGracePeriodSeconds)).toBeGreaterThan(timeout);
  });
});

describe("the PrometheusRule", () => {
  it("is what generate-prometheusrule.mjs makes now from prometheus/rules/trading.rules.yml", async () => {
    const { stdout } = await run(process.execPath, [repoPath(`${DIR}/generate-prometheusrule.mjs`), "--stdout"], { timeout: 20_000 });
    expect(readRepoFile(`${DIR}/prometheusrule.yaml`)).toBe(stdout);
    await expect(run(process.execPath, [repoPath(`${DIR}/generate-prometheusrule.mjs`), "--check"], { timeout: 20_000 })).resolves.toBeDefined();
  });

  it("holds the runbook base where the README's overlay patch replaces it", () => {
    const base = dig(one("PrometheusRule"), "spec", "groups", 1, "rules", 0) as Obj;
    expect(base.record).toBe("trading:runbook_base_url:info");
    expect(readRepoFile(`${DIR}/README.md`)).toContain("path: /spec/groups/1/rules/0/labels/url");
  });

  it("holds exactly the shipped rule groups", () => {
    const rule = one("PrometheusRule");
    expect(rule.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(dig(rule, "spec", "groups")).toEqual(dig(readYaml("prometheus/rules/trading.rules.yml"), "groups"));
  });
});

describe("kustomization.yaml", () => {
  it("lists every manifest of the folder, and only those", () => {
    const resources = dig(readYaml(`${DIR}/kustomization.yaml`), "resources") as string[];
    expect([...resources].sort()).toEqual([...manifestFiles].sort());
  });
});

describe("alertmanager-values.mjs (kube-prometheus-stack values for the shipped Alertmanager configuration)", () => {
  const root = mkdtempSync(join(tmpdir(), "te-k8s-am-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("carries the shipped configuration unchanged but for the chart's template folder, and the shipped templates", async () => {
    const { stdout } = await run(process.execPath, [repoPath(`${DIR}/alertmanager-values.mjs`)], { timeout: 20_000 });
    const values = parse(stdout) as Obj;
    const config = dig(values, "alertmanager", "config") as Obj;
    const shipped = readYaml("prometheus/alertmanager/alertmanager.yml") as Obj;
    expect(config.templates).toEqual(["/etc/alertmanager/config/*.tmpl"]);
    expect({ ...config, templates: shipped.templates }).toEqual(shipped);
    const templateFiles = dig(values, "alertmanager", "templateFiles") as Record<string, string>;
    expect(Object.keys(templateFiles)).toEqual(["trading.tmpl"]);
    expect(templateFiles["trading.tmpl"]).toBe(readRepoFile("prometheus/alertmanager/templates/trading.tmpl"));

    // amtool accepts it, with the templates where the chart puts them (here under a temporary root).
    for (const [name, text] of Object.entries(templateFiles)) writeFileSync(join(root, name), text);
    writeFileSync(join(root, "alertmanager.yml"), stringify({ ...config, templates: [join(root, "*.tmpl")] }));
    const result = amtool(["check-config", join(root, "alertmanager.yml")], root);
    expect(result.status, result.output).toBe(0);
    expect(result.output).toContain("1 templates");
  });
});
