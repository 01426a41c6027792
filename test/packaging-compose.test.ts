// The local compose stack: mounts exist, names, ports, keys and URLs agree across services, and promtool accepts its Prometheus config.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { PROFILES } from "../tools/simulator/config.js";
import { parseCliArgs } from "../tools/simulator/cli.js";
import { amtool } from "./helpers/amtool.js";
import { promtool } from "./helpers/promtool.js";
import { dig, readRepoFile, readYaml, repoPath } from "./helpers/yaml-files.js";

const COMPOSE_DIR = repoPath("deploy/compose");
const compose = readYaml("deploy/compose/compose.yaml");
const services = (dig(compose, "services") ?? {}) as Record<string, Record<string, unknown>>;

interface Mount {
  /** Absolute path on the host. */
  host: string;
  /** Path in the container. */
  target: string;
}

function service(name: string): Record<string, unknown> {
  const found = services[name];
  if (found === undefined) throw new Error(`compose.yaml has no service ${name}`);
  return found;
}

/** The bind mounts of a service (short syntax host:target[:mode]); named volumes are left out. */
function bindMounts(name: string): Mount[] {
  const volumes = (dig(service(name), "volumes") ?? []) as string[];
  return volumes.flatMap((spec) => {
    const [source, target] = spec.split(":");
    if (source === undefined || target === undefined || !/^(\.|\/)/.test(source)) return [];
    return [{ host: resolve(COMPOSE_DIR, source), target }];
  });
}

/** The host path behind a container path of a service, through its bind mounts. */
function hostPathOf(name: string, containerPath: string): string | undefined {
  for (const mount of bindMounts(name)) {
    if (containerPath === mount.target) return mount.host;
    if (containerPath.startsWith(`${mount.target}/`)) return join(mount.host, containerPath.slice(mount.target.length + 1));
  }
  return undefined;
}

/** Container ports of a service, from its "host:container" (or "ip:host:container") mappings. */
function containerPorts(name: string): number[] {
  return ((dig(service(name), "ports") ?? []) as string[]).map((p) => Number(p.split(":").at(-1)!.split("/")[0]));
}

function environment(name: string): Record<string, string> {
  return (dig(service(name), "environment") ?? {}) as Record<string, string>;
}

/** "http://host:port" → [host, port], with the scheme's default port. */
function hostPort(url: string): [string, number] {
  const parsed = new URL(url);
  return [parsed.hostname, Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80))];
}

const simulatorArgs = [...((dig(service("simulator"), "entrypoint") ?? []) as string[]), ...((dig(service("simulator"), "command") ?? []) as string[])];
const promConfigFlag = ((dig(service("prometheus"), "command") ?? []) as string[]).find((a) => a.startsWith("--config.file="));
const promConfigPath = promConfigFlag?.slice("--config.file=".length) ?? "/etc/prometheus/prometheus.yml";
const promConfigHost = hostPathOf("prometheus", promConfigPath);
const promConfig = readYaml(relative(repoPath(), promConfigHost ?? "missing"));

describe("compose.yaml", () => {
  it("has the six services, and every bind mount and secret file exists", () => {
    expect(Object.keys(services).sort()).toEqual(["alertmanager", "exporter", "grafana", "prometheus", "simulator", "webhook"]);
    const mounts = Object.keys(services).flatMap(bindMounts);
    expect(mounts.length).toBeGreaterThanOrEqual(4);
    for (const mount of mounts) expect(existsSync(mount.host), `${mount.host} (mounted at ${mount.target})`).toBe(true);
    const secrets = (dig(compose, "secrets") ?? {}) as Record<string, { file?: string }>;
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.file, name).toBeDefined();
      expect(statSync(resolve(COMPOSE_DIR, secret.file!)).isFile(), secret.file).toBe(true);
    }
  });

  it("builds the exporter's image from the repository's Dockerfile and pins every pulled image", () => {
    for (const [name, svc] of Object.entries(services)) {
      const image = String(svc.image);
      if (svc.build !== undefined) {
        const context = resolve(COMPOSE_DIR, String(dig(svc, "build", "context")));
        expect(realpathSync(context), name).toBe(realpathSync(repoPath()));
        expect(existsSync(join(context, String(dig(svc, "build", "dockerfile") ?? "Dockerfile")))).toBe(true);
        continue;
      }
      expect(image, name).not.toMatch(/:latest$/);
      expect(image, `${name}: an exact x.y.z tag`).toMatch(/:v?\d+\.\d+\.\d+(@sha256:[0-9a-f]{64})?$/);
    }
    // The simulator and the receiver come from the Dockerfile's tools stage, never from the exporter's image.
    for (const name of ["simulator", "webhook"]) expect(dig(service(name), "build", "target"), name).toBe("tools");
    expect(dig(service("exporter"), "build", "target")).toBeUndefined();
    expect(service("simulator").image).not.toBe(service("exporter").image);
  });

  it("runs the simulator with flags it accepts, on all interfaces, serving the collaterals the exporter asks for", () => {
    expect(simulatorArgs.slice(0, 2)).toEqual(["node", "dist-tools/tools/simulator/main.js"]);
    const command = parseCliArgs(simulatorArgs.slice(2));
    expect(command.kind).toBe("run");
    const options = command.kind === "run" ? command.options : {};
    expect(options.host).toBe("0.0.0.0");
    expect(existsSync(repoPath("tools/simulator/main.ts"))).toBe(true);
    const served = (options.collaterals ?? PROFILES[options.profile ?? "small"].collaterals).map((c) => c.id);
    const asked = environment("exporter")
      .TRADING_COLLATERAL_IDS!.split(",")
      .map((id) => id.trim());
    for (const id of asked) expect(served).toContain(id);
    // The exporter's base URL names the simulator's service and port.
    const [host, port] = hostPort(environment("exporter").TRADING_BASE_URL!);
    expect(host).toBe("simulator");
    expect(port).toBe(options.port);
  });

  it("gives the exporter, as a file, the key the simulator requires, and a valid TRADING_* configuration", () => {
    const env = environment("exporter");
    const keyFile = env.TRADING_API_KEY_FILE!;
    expect(env.TRADING_API_KEY, "the key comes from a file, never the environment").toBeUndefined();
    const secretName = /^\/run\/secrets\/([\w.-]+)$/.exec(keyFile)?.[1];
    expect(secretName, keyFile).toBeDefined();
    expect(dig(service("exporter"), "secrets")).toContain(secretName);
    const secretFile = resolve(COMPOSE_DIR, String(dig(compose, "secrets", secretName!, "file")));
    const command = parseCliArgs(simulatorArgs.slice(2));
    const simulatorKey = command.kind === "run" ? command.options.apiKey : undefined;
    expect(readFileSync(secretFile, "utf8").trim()).toBe(simulatorKey);
    const config = configFromEnv({ ...env, TRADING_API_KEY_FILE: secretFile });
    expect(config.venue.baseUrl.href).toBe("http://simulator:8080/");
    expect(config.accounts[0]!.auth).toMatchObject({ type: "api_key" });
    expect(config.listenAddresses).toMatchObject([{ port: 9842 }]);
    expect(containerPorts("exporter")).toContain(9842);
  });

  it("runs the exporter and the simulator read-only, without capabilities or privilege gain", () => {
    for (const name of ["exporter", "simulator", "webhook"]) {
      expect(dig(service(name), "read_only"), name).toBe(true);
      expect(dig(service(name), "cap_drop"), name).toEqual(["ALL"]);
      expect(dig(service(name), "security_opt"), name).toContain("no-new-privileges:true");
    }
  });
});

describe("the compose Prometheus", () => {
  it("reads its config from this folder and scrapes the exporter by service name and port", () => {
    expect(promConfigHost).toBe(join(COMPOSE_DIR, "prometheus.yml"));
    const jobs = (dig(promConfig, "scrape_configs") ?? []) as Array<Record<string, unknown>>;
    const trading = jobs.find((j) => j.job_name === "trading");
    expect(trading, 'a job named trading (the rules\' TradingExporterDown selects job=~"trading.*")').toBeDefined();
    const targets = ((dig(trading, "static_configs") ?? []) as Array<{ targets: string[] }>).flatMap((s) => s.targets);
    expect(targets).toEqual(["exporter:9842"]);
    for (const target of targets) {
      const [host, port] = target.split(":");
      expect(Object.keys(services)).toContain(host);
      expect(containerPorts(host!)).toContain(Number(port));
    }
  });

  it("loads the shipped rule file, unchanged, from prometheus/rules/", () => {
    const ruleFiles = (dig(promConfig, "rule_files") ?? []) as string[];
    expect(ruleFiles.length).toBeGreaterThan(0);
    for (const ruleFile of ruleFiles) {
      const inContainer = posix.resolve(posix.dirname(promConfigPath), ruleFile);
      const onHost = hostPathOf("prometheus", inContainer);
      expect(onHost, `${inContainer} is mounted`).toBeDefined();
      expect(realpathSync(onHost!)).toBe(realpathSync(repoPath("prometheus/rules/trading.rules.yml")));
    }
  });

  describe("promtool check config, on the container's file layout rebuilt from the mounts", () => {
    const root = mkdtempSync(join(tmpdir(), "te-compose-prometheus-"));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it("accepts the config and its one rule file", () => {
      for (const mount of bindMounts("prometheus")) {
        const into = join(root, mount.target);
        mkdirSync(dirname(into), { recursive: true });
        cpSync(mount.host, into, { recursive: true });
      }
      const result = promtool(["check", "config", join(root, promConfigPath)]);
      const output = `${result.stdout}${result.stderr}`;
      expect(result.status, output).toBe(0);
      expect(output).toContain("SUCCESS: 1 rule files found");
      expect(output).toMatch(/SUCCESS: \d+ rules found/);
    });
  });
});

describe("the compose Alertmanager and webhook receiver", () => {
  const amArgs = (dig(service("alertmanager"), "command") ?? []) as string[];
  const amConfigPath = amArgs.find((a) => a.startsWith("--config.file="))?.slice("--config.file=".length) ?? "/etc/alertmanager/alertmanager.yml";
  const amConfigHost = hostPathOf("alertmanager", amConfigPath);
  const webhookArgs = [...((dig(service("webhook"), "entrypoint") ?? []) as string[]), ...((dig(service("webhook"), "command") ?? []) as string[])];

  it("runs the shipped Alertmanager configuration, unchanged, and Prometheus sends to it by service name and port", () => {
    expect(realpathSync(amConfigHost!)).toBe(realpathSync(repoPath("prometheus/alertmanager/alertmanager.yml")));
    const targets = ((dig(promConfig, "alerting", "alertmanagers") ?? []) as Array<{ static_configs: Array<{ targets: string[] }> }>).flatMap((a) =>
      a.static_configs.flatMap((c) => c.targets),
    );
    expect(targets).toEqual(["alertmanager:9093"]);
    expect(containerPorts("alertmanager")).toContain(9093);
  });

  it("points every webhook of that configuration at the webhook service, which runs the shipped receiver on that port", () => {
    expect(webhookArgs.slice(0, 2)).toEqual(["node", "dist-tools/tools/webhook/main.js"]);
    expect(existsSync(repoPath("tools/webhook/main.ts"))).toBe(true);
    const port = Number(webhookArgs[webhookArgs.indexOf("--port") + 1]);
    expect(webhookArgs[webhookArgs.indexOf("--host") + 1]).toBe("0.0.0.0");
    expect(containerPorts("webhook")).toContain(port);
    const receivers = (dig(readYaml("prometheus/alertmanager/alertmanager.yml"), "receivers") ?? []) as Array<{ webhook_configs?: Array<{ url: string }> }>;
    const urls = receivers.flatMap((r) => (r.webhook_configs ?? []).map((w) => w.url));
    expect(urls.length).toBeGreaterThan(1);
    for (const url of urls) expect(hostPort(url)).toEqual(["webhook", port]);
  });

  describe("amtool check-config, on the container's file layout rebuilt from the mounts", () => {
    const root = mkdtempSync(join(tmpdir(), "te-compose-alertmanager-"));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it("accepts the configuration and finds its templates", () => {
      for (const mount of bindMounts("alertmanager")) {
        const into = join(root, mount.target);
        mkdirSync(dirname(into), { recursive: true });
        cpSync(mount.host, into, { recursive: true });
      }
      const result = amtool(["check-config", join(root, amConfigPath)], root);
      expect(result.status, result.output).toBe(0);
      expect(existsSync(join(root, posix.dirname(amConfigPath), "templates", "trading.tmpl"))).toBe(true);
    });
  });
});

describe("the compose Grafana", () => {
  const env = environment("grafana");

  it("lets anonymous viewers in and lands on the desk overview", () => {
    expect(env.GF_AUTH_ANONYMOUS_ENABLED).toBe("true");
    expect(env.GF_AUTH_ANONYMOUS_ORG_ROLE).toBe("Viewer");
    const home = hostPathOf("grafana", env.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH!);
    expect(home).toBe(repoPath("grafana/dashboards/trading-desk.json"));
    expect(containerPorts("grafana")).toContain(3000);
  });

  it("provisions the shipped data source, whose URL is the Prometheus service and port", () => {
    const file = hostPathOf("grafana", "/etc/grafana/provisioning/datasources/prometheus.yml");
    expect(file).toBe(repoPath("grafana/provisioning/datasources/prometheus.yml"));
    const datasources = (dig(readYaml("grafana/provisioning/datasources/prometheus.yml"), "datasources") ?? []) as Array<Record<string, unknown>>;
    const prometheus = datasources.find((d) => d.type === "prometheus");
    const [host, port] = hostPort(String(prometheus?.url));
    expect(host).toBe("prometheus");
    expect(String(service(host).image)).toMatch(/^prom\/prometheus:/);
    expect(containerPorts(host)).toContain(port);
    const listen = ((dig(service(host), "command") ?? []) as string[]).find((a) => a.startsWith("--web.listen-address="));
    expect(listen ?? "--web.listen-address=0.0.0.0:9090").toBe(`--web.listen-address=0.0.0.0:${port}`);
  });

  it("mounts the dashboards where the shipped dashboard provider reads them", () => {
    const providerFile = hostPathOf("grafana", "/etc/grafana/provisioning/dashboards/trading.yml");
    expect(providerFile).toBe(repoPath("grafana/provisioning/dashboards/trading.yml"));
    const providers = (dig(readYaml("grafana/provisioning/dashboards/trading.yml"), "providers") ?? []) as Array<Record<string, unknown>>;
    expect(providers.length).toBeGreaterThan(0);
    for (const provider of providers) {
      const path = String(dig(provider, "options", "path"));
      const onHost = hostPathOf("grafana", path);
      expect(onHost, `${path} is mounted`).toBe(repoPath("grafana/dashboards").replace(/\/$/, ""));
      for (const file of ["trading-desk.json", "trading-account.json"]) expect(existsSync(join(onHost!, file)), file).toBe(true);
    }
    expect(JSON.parse(readRepoFile("grafana/dashboards/trading-desk.json"))).toMatchObject({ uid: "trading-desk" });
    expect(JSON.parse(readRepoFile("grafana/dashboards/trading-account.json"))).toMatchObject({ uid: "trading-account" });
  });

  it("is the version docs/dashboards.md names, and the header names the dashboards it shows", () => {
    const image = String(service("grafana").image);
    expect(readRepoFile("docs/dashboards.md")).toContain(`\`${image}\``);
    const titles = ["trading-desk.json", "trading-account.json"].map((f) => (JSON.parse(readRepoFile(`grafana/dashboards/${f}`)) as { title: string }).title);
    const header = readRepoFile("deploy/compose/compose.yaml").split("\nname:")[0]!.replace(/\n# ?/g, " ");
    const named = [...header.matchAll(/dashboards? "([^"]+)"|and "([^"]+)"/g)].map((m) => m[1] ?? m[2]);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((n) => !titles.includes(n!))).toEqual([]);
  });
});
