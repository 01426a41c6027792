// Builds the exporter's own HTTP or HTTPS server from the web config, and the middleware adding its headers.

import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type express from "express";
import { tlsServerOptions, type WebConfig } from "./web-config.js";

/** HTTPS when the config has tls_server_config (client certificates required with client_ca_file), else HTTP. */
export function createWebServer(app: express.Express, config: WebConfig): Server {
  const tls = tlsServerOptions(config);
  return tls === undefined ? createHttpServer(app) : createHttpsServer(tls, app);
}

/** Sets http_server_config.headers on every response, the 401s of basic auth included when mounted before it. */
export function responseHeaders(headers: Record<string, string>): express.RequestHandler {
  const entries = Object.entries(headers);
  return (_req, res, next) => {
    for (const [name, value] of entries) res.setHeader(name, value);
    next();
  };
}
