// scripts/hash-password.mjs, the password hash docs/security.md shows: a bcrypt hash from stdin that bcryptjs verifies,
// that a web config accepts, and that lets that password through the exporter's basic auth.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { loadWebConfig } from "../src/http/toolkit/web-config.js";
import { readDoc, REPO_ROOT, runnableBlocks } from "./helpers/markdown-docs.js";

const SCRIPT = join(REPO_ROOT, "scripts/hash-password.mjs");

function hash(stdin: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [SCRIPT], { input: stdin, encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env } });
}

describe("scripts/hash-password.mjs", () => {
  it("prints a bcrypt hash of the password on stdin (cost 10), which bcryptjs verifies and a web config accepts", () => {
    const run = hash("correct horse\n");
    expect(run.status).toBe(0);
    const printed = run.stdout.trim();
    expect(printed).toMatch(/^\$2b\$10\$[./A-Za-z0-9]{53}$/);
    // The Enter that ended the line is not part of the password.
    expect(bcrypt.compareSync("correct horse", printed)).toBe(true);
    expect(bcrypt.compareSync("correct horse\n", printed)).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), "hash-password-"));
    try {
      writeFileSync(join(dir, "web.yml"), `basic_auth_users:\n  prometheus: ${printed}\n`);
      expect(loadWebConfig(join(dir, "web.yml")).basicAuthUsers).toEqual({ prometheus: printed });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes BCRYPT_COST, and refuses an empty password or a cost outside 4-31 with one line", () => {
    expect(hash("pw", { BCRYPT_COST: "4" }).stdout).toMatch(/^\$2b\$04\$/);
    expect(hash("")).toMatchObject({ status: 2, stdout: "", stderr: "hash-password: no password on stdin\n" });
    expect(hash("pw", { BCRYPT_COST: "3" })).toMatchObject({ status: 2, stderr: "hash-password: BCRYPT_COST must be a whole number from 4 to 31\n" });
  });

  it("is what docs/security.md shows, in a block the docs test runs", () => {
    const blocks = runnableBlocks("docs/security.md", readDoc("docs/security.md"));
    expect(blocks.some((b) => /\| node scripts\/hash-password\.mjs$/m.test(b.script))).toBe(true);
    expect(readDoc("docs/security.md")).not.toContain("htpasswd");
  });
});
