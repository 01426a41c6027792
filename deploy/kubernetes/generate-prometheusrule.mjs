#!/usr/bin/env node
// Writes prometheusrule.yaml (a prometheus-operator PrometheusRule) from the shipped prometheus/rules/trading.rules.yml.
//
//   node deploy/kubernetes/generate-prometheusrule.mjs           rewrite prometheusrule.yaml
//   node deploy/kubernetes/generate-prometheusrule.mjs --check   exit 1 if it is stale
//   node deploy/kubernetes/generate-prometheusrule.mjs --stdout  print it
//
// The rule file stays the one source: spec.groups is its `groups` node, comments included, so the
// alerts promtool tests are exactly the alerts the cluster gets. test/packaging-kubernetes.test.ts
// runs --check.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { writeOrCheck } from "../../scripts/generated-file.mjs";
import { Document, isSeq, parseDocument } from "yaml";

const RULES = fileURLToPath(new URL("../../prometheus/rules/trading.rules.yml", import.meta.url));
const OUTPUT = fileURLToPath(new URL("./prometheusrule.yaml", import.meta.url));

const HEADER = [
  " GENERATED from prometheus/rules/trading.rules.yml by deploy/kubernetes/generate-prometheusrule.mjs;",
  " do not edit: change the rule file (and its promtool tests), then run the script.",
  " kube-prometheus-stack loads only rules carrying its selector's label (by default",
  " release: <helm release name>): add it in a kustomize overlay (deploy/kubernetes/README.md).",
].join("\n");

/** The PrometheusRule manifest, as YAML text, for the given rule file text. */
export function renderPrometheusRule(rulesText) {
  const source = parseDocument(rulesText, { prettyErrors: true, uniqueKeys: true });
  if (source.errors.length > 0) throw new Error(`trading.rules.yml: ${source.errors[0].message}`);
  const groups = source.get("groups", true);
  if (!isSeq(groups) || groups.items.length === 0) throw new Error("trading.rules.yml: no `groups` list");
  const manifest = new Document({
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PrometheusRule",
    metadata: {
      name: "trading-exporter",
      labels: {
        "app.kubernetes.io/name": "trading-exporter",
        "app.kubernetes.io/component": "alerting-rules",
      },
    },
    spec: { groups: null },
  });
  manifest.setIn(["spec", "groups"], groups);
  manifest.commentBefore = HEADER;
  // lineWidth 0: never fold long expressions or descriptions; keep them as the rule file has them.
  return manifest.toString({ lineWidth: 0 });
}

function main(args) {
  const text = renderPrometheusRule(readFileSync(RULES, "utf8"));
  if (args.includes("--stdout")) {
    process.stdout.write(text);
    return 0;
  }
  return writeOrCheck(OUTPUT, text, args, {
    name: "deploy/kubernetes/prometheusrule.yaml",
    command: "node deploy/kubernetes/generate-prometheusrule.mjs",
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
