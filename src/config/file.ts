// The config file: YAML read strictly, its keys checked against the settings table, its accounts built.

import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import type { Env } from "./env.js";
import { ConfigError } from "./errors.js";
import { FROM_FILE, type Order, type Problems } from "./problems.js";
import { configValue } from "./setting.js";
import { REMOVED_SETTINGS, SETTING_LIST, SETTINGS } from "./settings.js";
import { DEFAULT_THRESHOLDS, mergeThresholds, THRESHOLD_KEYS, type Thresholds } from "./threshold-table.js";
import type { AccountConfig, AuthConfig } from "./types.js";
import { checkHeaderValue, Secret, secretFromFile, secretFromText } from "./secret.js";
import { parseAccountName, parseHeaderName, parseIdList } from "./values.js";
import { parseYaml, parseYamlAside, readText } from "./yaml.js";
import { addZodIssues, documentOrder, type KeyPath } from "./zod-issues.js";

const text = z.string().min(1);

const secretKeys = <K extends string>(key: K) =>
  ({ [key]: text.optional(), [`${key}_file`]: text.optional(), [`${key}_env`]: text.optional() }) as Record<
    K | `${K}_file` | `${K}_env`,
    z.ZodOptional<typeof text>
  >;

const AUTH = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("api_key"), header_name: text.default(SETTINGS["account.api_key_header"].default!), ...secretKeys("key") }),
  z.strictObject({ type: z.literal("bearer"), ...secretKeys("token") }),
  z.strictObject({ type: z.literal("basic"), username: text, ...secretKeys("password") }),
  z.strictObject({ type: z.literal("none") }),
]);

const HEADERS = z.record(z.string(), z.string()).default({});

// Each part of an account is checked once, on its own, so one bad part never hides another's problems.
const ACCOUNT_KEYS = ["name", "collateral_ids", "auth", "headers", "thresholds"];

function knownSections(): Map<string, string[]> {
  const sections = new Map<string, string[]>([
    ["accounts", []],
    ["thresholds", THRESHOLD_KEYS],
  ]);
  for (const [id, setting] of SETTING_LIST) {
    if (!setting.file) continue;
    const [section, key] = id.split(".") as [string, string];
    sections.set(section, [...(sections.get(section) ?? []), key]);
  }
  return sections;
}

/** From exactly one of `name`, `name_file` (relative to `baseDir`) and `name_env`; errors name the key, never the value. */
function secretOf(raw: Record<string, string | undefined>, name: string, key: string, env: Env, baseDir: string): Secret {
  const [inline, file, variable] = [raw[name], raw[`${name}_file`], raw[`${name}_env`]];
  const given = [inline, file, variable].filter((v) => v !== undefined).length;
  const names = `${key}, ${key}_file or ${key}_env`;
  if (given === 0) throw new ConfigError(`${key}: required (give one of ${names})`);
  if (given > 1) throw new ConfigError(`${key}: give only one of ${names}`);
  if (inline !== undefined) return secretFromText(inline, key);
  if (file !== undefined) return secretFromFile(isAbsolute(file) ? file : resolve(baseDir, file), `${key}_file`);
  const value = env[variable!];
  if (value === undefined || value.trim() === "") throw new ConfigError(`${key}_env: the environment variable ${variable} is not set or empty`);
  return new Secret(value.trim(), `${key}_env (${variable})`);
}

/** The account's credential; each problem goes to `collect`, which returns undefined for a step that had one. */
function auth(raw: z.infer<typeof AUTH>, key: string, env: Env, baseDir: string, collect: <T>(step: () => T) => T | undefined): AuthConfig | undefined {
  const secret = (name: string): Secret | undefined => collect(() => secretOf(raw, name, `${key}.${name}`, env, baseDir));
  switch (raw.type) {
    case "api_key": {
      // A bad header name never hides a missing or doubled key: both are reported.
      const header = collect(() => parseHeaderName(raw.header_name, `${key}.header_name`));
      const apiKey = secret("key");
      return header === undefined || apiKey === undefined ? undefined : { type: "api_key", header, key: apiKey };
    }
    case "bearer": {
      const token = secret("token");
      return token === undefined ? undefined : { type: "bearer", token };
    }
    case "basic": {
      const username = collect(() => {
        checkHeaderValue(raw.username, `${key}.username`);
        return raw.username;
      });
      const password = secret("password");
      return username === undefined || password === undefined ? undefined : { type: "basic", username, password };
    }
    case "none":
      return { type: "none" };
  }
}

export class ConfigFile {
  readonly #data: Record<string, unknown>;
  readonly baseDir: string;
  // Every key path's place in the file, walked only when a problem is to be sorted: an accepted file never pays for it.
  #places: ((path: KeyPath) => number) | undefined;

  /** `data` is the parsed YAML; relative paths in it resolve against `baseDir`. */
  constructor(data: unknown, baseDir: string) {
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      throw new ConfigError("config file: expected a mapping of sections (venue, accounts, scrape, web, log)");
    }
    this.#data = data as Record<string, unknown>;
    this.baseDir = baseDir;
  }

  value(id: string): unknown {
    return configValue(this.#data, id);
  }

  /** Where a key path's problems sort: in file order (a missing key: where its nearest present parent is). */
  at(id: string | KeyPath): Order {
    return [FROM_FILE, () => this.#order(typeof id === "string" ? id.split(".") : id)];
  }

  readonly #order = (path: KeyPath): number => {
    this.#places ??= documentOrder(this.#data);
    return this.#places(path);
  };

  checkKeys(problems: Problems): void {
    const sections = knownSections();
    const allKeys = [...sections].flatMap(([section, keys]) => keys.map((k) => `${section}.${k}`));
    for (const [section, value] of Object.entries(this.#data)) {
      const keys = sections.get(section);
      if (keys === undefined) {
        // A key of a section written at the top ("base_url:") is named with its section.
        const misplaced = allKeys.find((k) => k.endsWith(`.${section}`));
        if (misplaced !== undefined) problems.add(section, `unknown key (did you mean ${misplaced}?)`, this.at([section]));
        else problems.unknownKey("", "", section, sections.keys(), this.at([section]));
        continue;
      }
      if (section === "accounts") continue;
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        problems.add(section, "expected a mapping", this.at([section]));
        continue;
      }
      for (const key of Object.keys(value)) {
        if (!keys.includes(key) && !REMOVED_SETTINGS.some((r) => r.key === `${section}.${key}`))
          problems.unknownKey("", section, key, keys, this.at([section, key]));
      }
    }
  }

  /** Merged over `base` and checked as merged; an account's keys are checked here, the top-level map's by checkKeys. */
  #thresholds(at: ReadonlyArray<string | number>, base: Thresholds, problems: Problems): Thresholds | undefined {
    const given = at.reduce<unknown>((v, part) => (v as Record<string | number, unknown> | undefined)?.[part], this.#data);
    if (given === undefined) return base;
    const where = at.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`)).join("");
    if (given === null || typeof given !== "object" || Array.isArray(given)) {
      problems.add(where, `expected a mapping of ${THRESHOLD_KEYS.join(", ")}`, this.at(at));
      return undefined;
    }
    const map = given as Record<string, unknown>;
    const before = problems.size;
    if (at.length > 1)
      for (const key of Object.keys(map))
        if (!(THRESHOLD_KEYS as string[]).includes(key)) problems.unknownKey("", where, key, THRESHOLD_KEYS, this.at([...at, key]));
    const merged = mergeThresholds(base, map, where);
    for (const p of merged.problems) {
      const colon = p.line.indexOf(": ");
      problems.add(p.line.slice(0, colon), p.line.slice(colon + 2), this.at([...at, p.key]));
    }
    return problems.size > before ? undefined : merged.thresholds;
  }

  /** The top-level `thresholds:` over the table's defaults: what every account starts from. */
  thresholds(problems: Problems): Thresholds {
    const section = this.#data.thresholds;
    // A section that is no mapping was named by checkKeys.
    if (section === null || typeof section !== "object" || Array.isArray(section)) return DEFAULT_THRESHOLDS;
    return this.#thresholds(["thresholds"], DEFAULT_THRESHOLDS, problems) ?? DEFAULT_THRESHOLDS;
  }

  /** The accounts, each validated on its own so one bad account never hides another's problems; `thresholds` are the file's defaults. */
  accounts(env: Env, problems: Problems, thresholds: Thresholds = DEFAULT_THRESHOLDS): AccountConfig[] {
    const list = this.#data.accounts;
    if (!Array.isArray(list)) {
      problems.add("accounts", list === undefined ? "required" : "expected a list of accounts", this.at(["accounts"]));
      return [];
    }
    if (list.length === 0) problems.add("accounts", "expected at least one account", this.at(["accounts"]));
    const names = new Set<string>();
    const accounts: AccountConfig[] = [];
    list.forEach((data: unknown, i) => {
      const key = `accounts[${i}]`;
      if (data === null || typeof data !== "object" || Array.isArray(data)) {
        problems.add(key, "expected a mapping (name, collateral_ids, auth, headers, thresholds)", this.at(["accounts", i]));
        return;
      }
      const before = problems.size;
      const given = data as Record<string, unknown>;
      for (const field of Object.keys(given))
        if (!ACCOUNT_KEYS.includes(field)) problems.unknownKey("", key, field, ACCOUNT_KEYS, this.at(["accounts", i, field]));
      // Names and ids are checked by the same parsers as TRADING_ACCOUNT and TRADING_COLLATERAL_IDS.
      const field = <T>(part: string, parse: (value: unknown, key: string) => T, fallback: T): T => {
        if (given[part] !== undefined) return problems.collect(this.at(["accounts", i, part]), () => parse(given[part], `${key}.${part}`), fallback);
        problems.add(`${key}.${part}`, "required", this.at(["accounts", i, part]));
        return fallback;
      };
      const name = field("name", parseAccountName, "");
      if (name !== "" && names.has(name)) problems.add(`${key}.name`, "another account has this name", this.at(["accounts", i, "name"]));
      names.add(name);
      const collateralIds = field("collateral_ids", parseIdList, []);
      const shape = <T extends z.ZodType>(schema: T, field: string): z.infer<T> | undefined => {
        const parsed = schema.safeParse(given[field], { reportInput: true });
        if (parsed.success) return parsed.data;
        addZodIssues(parsed.error, problems, { schema, data: given[field], at: ["accounts", i, field], label: "", order: this.#order, source: FROM_FILE });
        return undefined;
      };
      const rawAuth = shape(AUTH, "auth");
      const rawHeaders = shape(HEADERS, "headers");
      for (const [header, value] of Object.entries(rawHeaders ?? {})) {
        const at = this.at(["accounts", i, "headers", header]);
        problems.collect(at, () => parseHeaderName(header, `${key}.headers.${header}`), "");
        problems.collect(at, () => checkHeaderValue(value, `${key}.headers.${header}`), undefined);
      }
      const accountThresholds = this.#thresholds(["accounts", i, "thresholds"], thresholds, problems);
      const authConfig =
        rawAuth === undefined
          ? undefined
          : auth(rawAuth, `${key}.auth`, env, this.baseDir, (step) => problems.collect(this.at(["accounts", i, "auth"]), step, undefined));
      if (authConfig === undefined || rawHeaders === undefined || accountThresholds === undefined || problems.size > before) return;
      accounts.push({ name, collateralIds, auth: authConfig, headers: rawHeaders, thresholds: accountThresholds });
    });
    return accounts;
  }
}

/** Reads and parses a config file; an unreadable file or bad YAML is one line (the rest cannot be read). */
export function readConfigFile(path: string): ConfigFile {
  return new ConfigFile(parseYaml(readText(path, "config file"), "config file"), dirname(path));
}

/** As readConfigFile, its YAML parsed on a worker thread: a reload of a large file never holds the event loop for the parse. */
export async function readConfigFileAside(path: string): Promise<ConfigFile> {
  return new ConfigFile(await parseYamlAside(readText(path, "config file"), "config file"), dirname(path));
}
