// The values of a loaded config that go in request headers besides the secrets (which check themselves).

import { checkHeaderValue } from "./secret.js";
import type { Config } from "./types.js";

/** Refuses a username or extra header value that is not a valid HTTP header value, naming its key path. */
export function checkRequestValues(config: Config): Config {
  config.accounts.forEach((account, i) => {
    if (account.auth.type === "basic") checkHeaderValue(account.auth.username, `accounts[${i}].auth.username`);
    for (const [name, value] of Object.entries(account.headers)) checkHeaderValue(value, `accounts[${i}].headers.${name}`);
  });
  return config;
}
