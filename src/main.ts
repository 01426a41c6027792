#!/usr/bin/env -S node --max-semi-space-size=16 --heap-growing-percent=50
// The trading-exporter command. The V8 flags above (also in `npm start` and the image's ENTRYPOINT) fix
// the young generation at 16 MiB a semi-space, whatever the machine, so a scrape's garbage (venue bodies,
// parsed orders, text) dies young instead of being promoted and marked; and let the old generation grow
// to 1.5 times what survived its last collection before the next one, not up to 4 times: the exporter
// keeps little between scrapes, and what a scrape promotes is garbage by the next. A Node.js older than
// package.json's engines is refused before anything else loads.

import { refuseOlderNode } from "./util/node-engines.js";

refuseOlderNode("trading-exporter");
await import("./serve.js");
