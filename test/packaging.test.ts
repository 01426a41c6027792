// The container image's recipe: Dockerfile rules, what .dockerignore keeps out, the healthcheck run for real, the changelog.

import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { startExporterChild, type ExporterChild } from "./helpers/child.js";
import { dockerIgnores, parseDockerfile, readRepoFile, repoPath, type DockerInstruction } from "./helpers/yaml-files.js";

const run = promisify(execFile);

const dockerfile = parseDockerfile(readRepoFile("Dockerfile"));
const dockerignore = readRepoFile(".dockerignore");
const pkg = JSON.parse(readRepoFile("package.json")) as {
  version: string;
  license: string;
  engines: { node: string };
  repository?: string | { url?: string };
};

const froms = dockerfile.filter((i) => i.keyword === "FROM");
const lastStage = froms.length - 1;
const finalStage = dockerfile.filter((i) => i.stage === lastStage);
const stageNames = froms.map((f) => /\bAS\s+(\S+)/i.exec(f.args)?.[1]?.toLowerCase()).filter((n) => n !== undefined);

function only(keyword: string, instructions: DockerInstruction[] = finalStage): DockerInstruction[] {
  return instructions.filter((i) => i.keyword === keyword);
}

/** The argv of an exec-form (JSON array) instruction, or undefined for the shell form. */
function execForm(args: string): string[] | undefined {
  try {
    const value = JSON.parse(args) as unknown;
    return Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The default value of an ARG of the final stage. */
function argDefault(name: string): string | undefined {
  for (const arg of only("ARG")) {
    const match = new RegExp(`^${name}=(.*)$`).exec(arg.args.trim());
    if (match) return match[1]!.replace(/^"(.*)"$/, "$1");
  }
  return undefined;
}

/** Label key → value of the final stage (LABEL k="v" k2="v2" ...). */
function labels(): Map<string, string> {
  const found = new Map<string, string>();
  for (const label of only("LABEL")) {
    for (const match of label.args.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
      found.set(match[1]!, match[2]!.replace(/^"(.*)"$/, "$1"));
    }
  }
  return found;
}

/** Every file below a folder, as context-relative paths. */
function filesUnder(relative: string): string[] {
  const absolute = repoPath(relative);
  if (!statSync(absolute).isDirectory()) return [relative];
  return readdirSync(absolute).flatMap((name) => filesUnder(join(relative, name)));
}

describe("Dockerfile", () => {
  it("has a build stage and a runtime stage, each FROM pinned to an exact x.y.z tag or a digest", () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) {
      const image = from.args.replace(/--platform=\S+\s+/, "").split(/\s+/)[0]!;
      if (stageNames.includes(image.toLowerCase())) continue; // FROM an earlier stage
      expect(image, from.args).not.toMatch(/:latest\b|^\$/);
      expect(image, `${image} is not pinned`).toMatch(/:\d+\.\d+\.\d+[\w.-]*(@sha256:[0-9a-f]{64})?$|@sha256:[0-9a-f]{64}$/);
    }
  });

  it("runs one Node release in both stages, the one .ci/run tests on, and one that package.json's engines admits", () => {
    const versions = froms
      .filter((f) => !stageNames.includes(f.args.split(/\s+/)[0]!.toLowerCase()))
      .map((f) => /^node:(\d+\.\d+\.\d+)-/.exec(f.args.replace(/--platform=\S+\s+/, ""))?.[1]);
    expect(new Set(versions).size, `FROM lines: ${versions.join(", ")}`).toBe(1);
    // .ci/run installs the release of the first FROM line: it must find one there.
    expect(readRepoFile(".ci/run")).toContain("^FROM node:([0-9]+\\.[0-9]+\\.[0-9]+)");
    const [major, minor] = versions[0]!.split(".").map(Number) as [number, number];
    const floor = /^>=(\d+)\.(\d+)/.exec(pkg.engines.node);
    expect(floor, `engines.node is "${pkg.engines.node}", expected ">=x.y"`).not.toBeNull();
    expect(major * 1000 + minor).toBeGreaterThanOrEqual(Number(floor![1]) * 1000 + Number(floor![2]));
  });

  it("builds with dev dependencies (npm ci, npm run build) and installs production dependencies only in the runtime stage", () => {
    const buildRuns = dockerfile.filter((i) => i.stage === 0 && i.keyword === "RUN").map((i) => i.args);
    expect(buildRuns.some((r) => /\bnpm ci\b/.test(r) && !/--omit=dev|--production|--only=prod/.test(r))).toBe(true);
    expect(buildRuns.some((r) => /\bnpm run build\b/.test(r))).toBe(true);
    const runtimeRuns = only("RUN").map((i) => i.args);
    const installs = runtimeRuns.filter((r) => /\bnpm (ci|install|i)\b/.test(r));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) expect(install).toMatch(/\bnpm ci\b.*--omit=dev/);
    expect(runtimeRuns.join("\n")).not.toMatch(/npm run build|\btsc\b/);
    const copies = only("COPY").map((c) => c.args);
    expect(
      copies.some((c) => /^--from=\S+\s+\S*dist\S*\s/.test(c)),
      "dist/ comes from the build stage",
    ).toBe(true);
    expect(
      copies.some((c) => /(^|\s)src\b/.test(c) && !c.startsWith("--from")),
      "no sources in the runtime stage",
    ).toBe(false);
  });

  it("runs as a numeric non-root user with NODE_ENV=production, exposes 9842 and starts dist/main.js", () => {
    const user = only("USER").at(-1)?.args.trim();
    expect(user, "the final stage sets USER").toBeDefined();
    const uid = user!.split(":")[0]!;
    expect(uid, "numeric, so Kubernetes runAsNonRoot can verify it").toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
    expect(
      only("ENV")
        .map((e) => e.args)
        .join(" "),
    ).toMatch(/\bNODE_ENV=production\b/);
    expect(only("EXPOSE").flatMap((e) => e.args.split(/\s+/))).toContain("9842");
    const entry = only("ENTRYPOINT").at(-1);
    const cmd = only("CMD").at(-1);
    const argv = [...(execForm(entry?.args ?? "[]") ?? []), ...(execForm(cmd?.args ?? "[]") ?? [])];
    expect(argv[0]).toBe("node");
    expect(argv.filter((a) => !a.startsWith("--"))).toEqual(["node", "dist/main.js"]);
  });

  it("passes the revision build argument to the exporter as TRADING_EXPORTER_REVISION", () => {
    expect(argDefault("REVISION")).toBeDefined();
    expect(
      only("ENV")
        .map((e) => e.args)
        .join(" "),
    ).toMatch(/\bTRADING_EXPORTER_REVISION=\$\{?REVISION\}?/);
    expect(readRepoFile("src/version.ts")).toContain("process.env.TRADING_EXPORTER_REVISION");
  });

  it("carries the OCI labels, with the package's version and licence", () => {
    const found = labels();
    for (const key of ["title", "description", "source", "licenses", "version", "revision"]) {
      expect(found.get(`org.opencontainers.image.${key}`), key).toBeTruthy();
    }
    expect(found.get("org.opencontainers.image.title")).toBe("trading-exporter");
    expect(found.get("org.opencontainers.image.licenses")).toBe(pkg.license);
    expect(found.get("org.opencontainers.image.version")).toBe("${VERSION}");
    expect(argDefault("VERSION"), "ARG VERSION follows package.json").toBe(pkg.version);
    const repository = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
    if (repository !== undefined) expect(argDefault("SOURCE")).toBe(repository.replace(/^git\+/, "").replace(/\.git$/, ""));
  });

  it("has a HEALTHCHECK on /-/healthy that needs neither curl nor wget", () => {
    const healthchecks = only("HEALTHCHECK");
    expect(healthchecks).toHaveLength(1);
    const check = healthchecks[0]!.args;
    expect(check).not.toMatch(/\b(curl|wget)\b/);
    expect(check).toMatch(/--timeout=\d+s/);
    expect(check).toContain("/-/healthy");
  });

  it("COPYs only files that exist and that .dockerignore lets into the context", () => {
    const sources = dockerfile
      .filter((i) => i.keyword === "COPY" || i.keyword === "ADD")
      .filter((i) => !/--from=/.test(i.args))
      .flatMap((i) =>
        i.args
          .split(/\s+/)
          .filter((a) => !a.startsWith("--"))
          .slice(0, -1),
      );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(repoPath(source)), `${source} exists`).toBe(true);
      const files = filesUnder(source);
      expect(files.filter((f) => !dockerIgnores(dockerignore, f)).length, `${source} reaches the build context`).toBeGreaterThan(0);
    }
    // Every source file is sent (tsc would fail on a missing import in the image, not here).
    const sent = filesUnder("src").filter((f) => !dockerIgnores(dockerignore, f));
    expect(sent).toEqual(filesUnder("src"));
    const fromStages = dockerfile.filter((i) => /--from=/.test(i.args)).map((i) => /--from=(\S+)/.exec(i.args)![1]!.toLowerCase());
    for (const stage of fromStages) expect(stageNames).toContain(stage);
  });
});

describe(".dockerignore", () => {
  it.each([
    "node_modules/yaml/package.json",
    "dist/main.js",
    "test/packaging.test.ts",
    "test/fixtures/markets.json",
    "src/fixtures/x.json",
    ".git/HEAD",
    ".ci/run",
    "examples/secrets/main.key",
    "deploy/compose/secrets/venue-api-key",
    "src/config/secrets/x",
    "src/tls/server.key",
    "server.pem",
    "src/x.pem",
    "coverage/index.html",
    "bench-results/soak.json",
    "bench/soak.ts",
    "dist-bench/bench/soak.js",
    "npm-debug.log",
    "src/debug.log",
    ".env",
    "README.md",
    "deploy/kubernetes/deployment.yaml",
  ])("keeps %s out of the build context", (path) => {
    expect(dockerIgnores(dockerignore, path)).toBe(true);
  });

  it.each(["package.json", "package-lock.json", "tsconfig.build.json", "src/main.ts", "tools/simulator/main.ts"])("sends %s", (path) => {
    expect(dockerIgnores(dockerignore, path)).toBe(false);
  });
});

describe("the HEALTHCHECK command", () => {
  const argv = execForm(/CMD\s+(\[.*\])\s*$/.exec(only("HEALTHCHECK")[0]?.args ?? "")?.[1] ?? "");
  let exporter: ExporterChild | undefined;
  afterAll(async () => {
    if (exporter && exporter.child.exitCode === null) {
      exporter.child.kill("SIGTERM");
      await exporter.exited;
    }
  });

  it("is exec form, runs node, and asks the default listen port", () => {
    expect(argv?.[0]).toBe("node");
    expect(argv?.join(" ")).toContain("http://127.0.0.1:9842/-/healthy");
  });

  it("exits 0 against a running exporter and 1 when nothing answers", async () => {
    exporter = await startExporterChild({
      TRADING_BASE_URL: "http://127.0.0.1:9",
      TRADING_API_KEY: "healthcheck-test-key",
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    });
    const port = new URL(exporter.url).port;
    const pointed = argv!.slice(1).map((a) => a.replace("127.0.0.1:9842", `127.0.0.1:${port}`));
    await expect(run(process.execPath, pointed, { timeout: 10_000 })).resolves.toBeDefined();
    exporter.child.kill("SIGTERM");
    expect(await exporter.exited).toBe(0);
    const refused = await run(process.execPath, pointed, { timeout: 10_000 }).then(
      () => 0,
      (error: { code?: number }) => error.code,
    );
    expect(refused).toBe(1);
  });
});

describe(".ci/image-recipe", () => {
  const recipe = readRepoFile(".ci/image-recipe");

  it("is an executable bash script with a cleanup trap", () => {
    accessSync(repoPath(".ci/image-recipe"), constants.X_OK);
    expect(recipe.startsWith("#!/usr/bin/env bash\n")).toBe(true);
    expect(recipe).toMatch(/^set -euo pipefail$/m);
    expect(recipe).toMatch(/^trap cleanup EXIT$/m);
  });

  it("runs the same npm ci commands as the Dockerfile's stages", () => {
    const commands = dockerfile
      .filter((i) => i.keyword === "RUN")
      .flatMap((i) => i.args.split("&&"))
      .map((c) => c.trim())
      .filter((c) => c.startsWith("npm ci") || c.startsWith("npm run build") || c.startsWith("rm -rf dist"));
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const command of commands) expect(recipe, command).toContain(command);
  });
});

describe("CHANGELOG.md", () => {
  const changelog = readRepoFile("CHANGELOG.md");

  it("follows Keep a Changelog and has a dated entry for the package's version", () => {
    expect(changelog).toMatch(/^# Changelog$/m);
    expect(changelog).toContain("Keep a Changelog");
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    expect(changelog).toMatch(new RegExp(`^## \\[${pkg.version.replace(/\./g, "\\.")}\\] - \\d{4}-\\d{2}-\\d{2}$`, "m"));
    const sections = [...changelog.matchAll(/^### (\w+)$/gm)].map((m) => m[1]);
    for (const section of sections) expect(["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]).toContain(section);
  });
});
