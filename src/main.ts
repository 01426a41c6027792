#!/usr/bin/env -S node --max-semi-space-size=2
// The trading-exporter command. The V8 flag above (also in `npm start` and the image's NODE_OPTIONS) keeps
// the young generation at 2 MiB: a scrape's garbage is mostly venue bodies and text, so memory stays low
// for a little more CPU per scrape. A Node.js older than package.json's engines is refused before anything
// else loads: the dependencies (undici) need the newer release and would fail with a library's stack trace.

import { NODE_FLOOR, belowFloor } from "./util/node-engines.js";

if (belowFloor(process.versions.node)) {
  process.stderr.write(`trading-exporter: Node.js ${process.version} is older than this release supports (>=${NODE_FLOOR}); run it on Node.js 24 LTS\n`);
  process.exit(1);
}
await import("./serve.js");
