// The listening sockets systemd passes to a socket-activated service (LISTEN_PID, LISTEN_FDS, from fd 3).

const FIRST_FD = 3;
/** A bound on LISTEN_FDS, so a mistyped count cannot start thousands of servers. */
const MAX_FDS = 64;
/** What systemd sets for the service; taken once, so no child process believes the sockets are its own. */
const VARIABLES = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"];

export const CHECK_SOCKET_UNIT = "check the ListenStream= lines of the service's .socket unit";

export class SystemdSocketError extends Error {
  override readonly name = "SystemdSocketError";

  constructor(reason: string, remedy: string) {
    super(`--web.systemd-socket: ${reason}; ${remedy}`);
  }
}

/** The descriptors systemd passed to process `pid` (sd_listen_fds(3)); removes the variables that said so from `env`. */
export function takeSystemdSockets(env: Record<string, string | undefined>, pid: number): number[] {
  const owner = env.LISTEN_PID;
  const count = env.LISTEN_FDS;
  for (const name of VARIABLES) delete env[name];
  if (owner === undefined || count === undefined)
    throw new SystemdSocketError(
      "no socket passed by systemd (LISTEN_PID and LISTEN_FDS are not set)",
      "start the exporter from a systemd .socket unit, or leave out --web.systemd-socket",
    );
  if (!/^\d{1,10}$/.test(owner) || Number(owner) !== pid)
    throw new SystemdSocketError(
      "LISTEN_PID names another process: the sockets were passed to it, not to this one",
      "let systemd start the exporter itself (a wrapper script must exec it)",
    );
  const n = /^\d{1,3}$/.test(count) ? Number(count) : Number.NaN;
  if (!(n >= 1 && n <= MAX_FDS)) throw new SystemdSocketError(`LISTEN_FDS: expected a number of sockets from 1 to ${MAX_FDS}`, CHECK_SOCKET_UNIT);
  return Array.from({ length: n }, (_, i) => FIRST_FD + i);
}
