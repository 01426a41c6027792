// The config file: YAML read strictly, its keys checked against the settings table, its accounts built.

import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { ConfigError, type KeyPath, keyPath, type Problems, valueAt } from "./errors.js";
import { checkHeaderValue, readText, Secret, secretFromFile, secretFromText } from "./secret.js";
import { REMOVED_SETTINGS, SETTING_LIST, SETTINGS } from "./settings.js";
import { DEFAULT_THRESHOLDS, mergeThresholds, THRESHOLD_KEYS, type Thresholds } from "./threshold-table.js";
import { AUTH_SCHEMES, type AuthType, authOf } from "./auth-schemes.js";
import type { AccountConfig } from "./types.js";
import { parseAccountName, parseHeaderName, parseHeaderValue, parseIdList } from "./values.js";
import { addZodIssues, parseYaml, parseYamlAside } from "./yaml.js";

const text = z.string().min(1);

const secretKeys = (key: string) => ({ [key]: text.optional(), [`${key}_file`]: text.optional(), [`${key}_env`]: text.optional() });

const AUTH_SHAPES = Object.entries(AUTH_SCHEMES).map(([type, scheme]) =>
  z.strictObject({
    type: z.literal(type as AuthType),
    ...(scheme.headerName ? { header_name: text.default(SETTINGS["account.api_key_header"].default) } : {}),
    ...(scheme.username ? { username: text } : {}),
    ...(scheme.secret === undefined ? {} : secretKeys(scheme.secret)),
  }),
);
const AUTH = z.discriminatedUnion("type", AUTH_SHAPES as [(typeof AUTH_SHAPES)[number], ...typeof AUTH_SHAPES]);

const HEADERS = z.record(z.string(), z.string()).default({});

const ACCOUNT_KEYS = ["name", "collateral_ids", "auth", "headers", "thresholds"];

const isMap = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** From exactly one of `name`, `name_file` (relative to `baseDir`) and `name_env`; errors name the key, never the value. */
function secretOf(raw: Record<string, string | undefined>, name: string, key: string, env: NodeJS.ProcessEnv, baseDir: string): Secret {
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

export class ConfigFile {
  readonly data: Record<string, unknown>;
  readonly baseDir: string;

  /** `data` is the parsed YAML; relative paths in it resolve against `baseDir`. */
  constructor(data: unknown, baseDir: string) {
    if (!isMap(data)) throw new ConfigError("config file: expected a mapping of sections (venue, accounts, scrape, web, log)");
    [this.data, this.baseDir] = [data, baseDir];
  }

  /** Each section and key of the settings' sections that the table does not know. */
  checkKeys(problems: Problems): void {
    const sections = new Map<string, string[]>(Object.entries({ accounts: [], thresholds: THRESHOLD_KEYS }));
    for (const [id, setting] of SETTING_LIST) {
      const [section, key] = id.split(".") as [string, string];
      if (setting.file) sections.set(section, [...(sections.get(section) ?? []), key]);
    }
    for (const [section, value] of Object.entries(this.data)) {
      const keys = sections.get(section);
      // A key of a section written at the top ("base_url:") is named with its section.
      const home = [...sections].find(([, known]) => known.includes(section))?.[0];
      if (keys === undefined && home !== undefined) problems.add(section, `unknown key (did you mean ${home}.${section}?)`, [section]);
      else if (keys === undefined) problems.unknownKey("", section, sections.keys(), [section]);
      else if (section === "accounts" || section === "thresholds") continue;
      else if (!isMap(value)) problems.add(section, "expected a mapping", [section]);
      else
        for (const key of Object.keys(value))
          if (!keys.includes(key) && !REMOVED_SETTINGS.some((r) => r.key === `${section}.${key}`)) problems.unknownKey(section, key, keys, [section, key]);
    }
  }

  /** The thresholds map at `at` over `base`, checked as merged; undefined when it has a problem. */
  #thresholds(at: KeyPath, base: Thresholds, problems: Problems): Thresholds | undefined {
    const [given, where, before] = [valueAt(this.data, at), keyPath(at), problems.size];
    if (given === undefined) return base;
    if (!isMap(given)) {
      problems.add(where, `expected a mapping of ${THRESHOLD_KEYS.join(", ")}`, at);
      return undefined;
    }
    for (const key of Object.keys(given)) if (!(THRESHOLD_KEYS as string[]).includes(key)) problems.unknownKey(where, key, THRESHOLD_KEYS, [...at, key]);
    const merged = mergeThresholds(base, given, where, (key, text) => problems.add(`${where}.${key}`, text, [...at, key]));
    return problems.size > before ? undefined : merged;
  }

  /** The accounts, each part of each checked on its own so one bad part never hides another's problems. */
  accounts(env: NodeJS.ProcessEnv, problems: Problems): AccountConfig[] {
    // The top-level `thresholds:` over the table's defaults: what every account starts from.
    const defaults = this.#thresholds(["thresholds"], DEFAULT_THRESHOLDS, problems) ?? DEFAULT_THRESHOLDS;
    const list = this.data.accounts;
    if (!Array.isArray(list)) {
      problems.add("accounts", list === undefined ? "required" : "expected a list of accounts", ["accounts"]);
      return [];
    }
    if (list.length === 0) problems.add("accounts", "expected at least one account", ["accounts"]);
    const names = new Set<string>();
    return list.flatMap((given: unknown, i): AccountConfig[] => {
      const [key, at] = [`accounts[${i}]`, (...parts: PropertyKey[]) => ["accounts", i, ...parts]];
      if (!isMap(given)) {
        problems.add(key, "expected a mapping (name, collateral_ids, auth, headers, thresholds)", at());
        return [];
      }
      const before = problems.size;
      for (const part of Object.keys(given)) if (!ACCOUNT_KEYS.includes(part)) problems.unknownKey(key, part, ACCOUNT_KEYS, at(part));
      // Names and ids are checked by the same parsers as TRADING_ACCOUNT and TRADING_COLLATERAL_IDS.
      const field = <T>(part: string, parse: (value: unknown, key: string) => T, fallback: T): T => {
        if (given[part] !== undefined) return problems.collect(at(part), () => parse(given[part], `${key}.${part}`), fallback);
        problems.add(`${key}.${part}`, "required", at(part));
        return fallback;
      };
      const name = field("name", parseAccountName, "");
      if (name !== "" && names.has(name)) problems.add(`${key}.name`, "another account has this name", at("name"));
      names.add(name);
      const collateralIds = field("collateral_ids", parseIdList, []);
      const shape = <T extends z.ZodType>(schema: T, part: string): z.infer<T> | undefined => {
        const parsed = schema.safeParse(given[part], { reportInput: true });
        if (!parsed.success) addZodIssues(parsed.error, problems, { schema, data: given[part], at: at(part), label: "" });
        return parsed.data;
      };
      const [parsedAuth, headers] = [shape(AUTH, "auth"), shape(HEADERS, "headers")];
      for (const [header, value] of Object.entries(headers ?? {})) {
        problems.collect(at("headers", header), () => parseHeaderName(header, `${key}.headers.${header}`), "");
        problems.collect(at("headers", header), () => checkHeaderValue(value, `${key}.headers.${header}`), undefined);
      }
      const thresholds = this.#thresholds(at("thresholds"), defaults, problems);
      const [raw, secret] = [parsedAuth as Record<string, string>, AUTH_SCHEMES[parsedAuth?.type ?? "none"].secret ?? ""];
      const step =
        <T>(run: () => T) =>
        () =>
          problems.collect(at("auth"), run, undefined);
      const auth =
        parsedAuth &&
        authOf(
          parsedAuth.type,
          step(() => parseHeaderName(raw.header_name, `${key}.auth.header_name`)),
          step(() => parseHeaderValue(raw.username, `${key}.auth.username`)),
          step(() => secretOf(raw, secret, `${key}.auth.${secret}`, env, this.baseDir)),
        );
      if (auth === undefined || headers === undefined || thresholds === undefined || problems.size > before) return [];
      return [{ name, collateralIds, auth, headers, thresholds }];
    });
  }
}

/** Reads a config file; an unreadable file or bad YAML is one line (the rest cannot be read). Its YAML is parsed on a worker thread when the exporter serves (a
 * reload), on this one at start-up, when nothing waits: a worker's memory outlives it by seconds (about 28 MB of idle RSS at 1,000 accounts). */
export async function readConfigFile(path: string, serving: boolean): Promise<ConfigFile> {
  const text = readText(path, "config file");
  return new ConfigFile(serving ? await parseYamlAside(text, "config file") : parseYaml(text, "config file"), dirname(path));
}
