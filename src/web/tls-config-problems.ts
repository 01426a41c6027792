// The tls_server_config mistakes no single key shows: a PEM given twice or not at all, a client CA or SAN list
// that nothing would check, versions the wrong way round, suite and curve names without an OpenSSL equivalent.

import { TLS_VERSIONS } from "./tls-config.js";
import { cipherSuiteProblem, curveProblem, isTls13Suite } from "./tls-names.js";

interface TlsKeys {
  cert?: string | undefined;
  key?: string | undefined;
  client_ca?: string | undefined;
  cert_file?: string | undefined;
  key_file?: string | undefined;
  client_auth_type: string;
  client_ca_file?: string | undefined;
  client_allowed_sans?: string[] | undefined;
  min_version: (typeof TLS_VERSIONS)[number];
  max_version: (typeof TLS_VERSIONS)[number];
  cipher_suites?: string[] | undefined;
  curve_preferences?: string[] | undefined;
}

export type ReportProblem = (path: PropertyKey[], message: string) => void;

// A name is shown only if it looks like one: the list could hold anything pasted by mistake.
const shown = (name: string): string => (/^[A-Za-z0-9_]{1,64}$/.test(name) ? `${name}: ` : "");

const ASKS_NO_CERTIFICATE = "NoClientCert";

function onePem(inline: string | undefined, file: string | undefined, key: string, report: ReportProblem, required: boolean): void {
  if (inline !== undefined && file !== undefined) report([key], `give ${key} or ${key}_file, not both`);
  // "required" on the file key, so a misspelt cert_fle is reported in its place (config/problems.ts).
  else if (required && inline === undefined && file === undefined) report([`${key}_file`], `required (or ${key} with the PEM inline)`);
}

export function tlsConfigProblems(tls: TlsKeys, report: ReportProblem): void {
  onePem(tls.cert, tls.cert_file, "cert", report, true);
  onePem(tls.key, tls.key_file, "key", report, true);
  onePem(tls.client_ca, tls.client_ca_file, "client_ca", report, false);
  if (tls.client_auth_type === ASKS_NO_CERTIFICATE) {
    // As the toolkit: a CA alone used to require certificates here, and would silently check nothing now.
    const needsPolicy = "is set but client_auth_type is NoClientCert (the default), so no certificate is asked for: set RequireAndVerifyClientCert";
    if (tls.client_ca !== undefined) report(["client_ca"], needsPolicy);
    if (tls.client_ca_file !== undefined) report(["client_ca_file"], needsPolicy);
    if (tls.client_allowed_sans !== undefined) report(["client_allowed_sans"], needsPolicy);
  }
  if (TLS_VERSIONS.indexOf(tls.min_version) > TLS_VERSIONS.indexOf(tls.max_version)) {
    report(["min_version"], `${tls.min_version} is above max_version ${tls.max_version}`);
  }
  const suites = tls.cipher_suites ?? [];
  suites.forEach((name, i) => {
    const problem = cipherSuiteProblem(name);
    if (problem !== undefined) report(["cipher_suites", i], `${shown(name)}${problem}`);
  });
  if (suites.length > 0 && suites.every(isTls13Suite)) {
    report(["cipher_suites"], "lists only TLS 1.3 suites, which are not configurable (as in Go): list TLS 1.0-1.2 ones or leave the key out");
  }
  (tls.curve_preferences ?? []).forEach((name, i) => {
    const problem = curveProblem(name);
    if (problem !== undefined) report(["curve_preferences", i], `${shown(name)}${problem}`);
  });
}
