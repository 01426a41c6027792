// Run by `npm start`, `npm run demo` and `npm run simulator` before they build: a Node.js older than package.json's
// engines stops here with the one line the built entry points print, not in the compiler or a library's stack trace.
// Usage: node scripts/node-floor.mjs COMMAND (the name the line begins with). Plain syntax: any old Node.js reads it.

import { readFileSync } from "node:fs";

const command = process.argv[2] || "trading-exporter";
const floor = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node.replace(/^>=/, "");
const [major, minor] = process.versions.node.split(".").map(Number);
const [floorMajor, floorMinor] = floor.split(".").map(Number);
if (major < floorMajor || (major === floorMajor && minor < floorMinor)) {
  process.stderr.write(`${command}: Node.js ${process.version} is older than this release supports (>=${floor}); run it on Node.js 24 LTS\n`);
  process.exit(1);
}
