// The listening sockets systemd passes to a socket-activated service (LISTEN_PID, LISTEN_FDS, from fd 3).

/** sd_listen_fds(3): the passed descriptors start here. */
const FIRST_FD = 3;
/** A bound on LISTEN_FDS, so a mistyped count cannot start thousands of servers. */
const MAX_FDS = 64;
/** What systemd sets for the service; taken once, so no child process believes the sockets are its own. */
const VARIABLES = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"];

/** What to do when the descriptors are there but unusable: the unit's sockets are the ones to look at. */
export const CHECK_SOCKET_UNIT = "check the ListenStream= lines of the service's .socket unit";

/** --web.systemd-socket without usable sockets: the exporter stops at start-up, as the exporter-toolkit does. */
export class SystemdSocketError extends Error {
  override readonly name = "SystemdSocketError";

  /** `remedy` says what to do, so the one line the exporter stops with is enough to act on. */
  constructor(reason: string, remedy: string) {
    super(`--web.systemd-socket: ${reason}; ${remedy}`);
  }
}

/**
 * The descriptors systemd passed to process `pid`, and the variables that said so removed from `env`.
 * The values are not quoted in errors: they are systemd's, and a count or pid says nothing more.
 */
export function takeSystemdSockets(env: Record<string, string | undefined>, pid: number): number[] {
  const owner = env.LISTEN_PID;
  const count = env.LISTEN_FDS;
  for (const name of VARIABLES) delete env[name];
  if (owner === undefined || count === undefined)
    throw new SystemdSocketError(
      "no socket passed by systemd (LISTEN_PID and LISTEN_FDS are not set)",
      "start the exporter from a systemd .socket unit, or leave out --web.systemd-socket",
    );
  // systemd sets LISTEN_PID to the process it started: one inherited from a parent is not ours.
  if (!/^\d{1,10}$/.test(owner) || Number(owner) !== pid)
    throw new SystemdSocketError(
      "LISTEN_PID names another process: the sockets were passed to it, not to this one",
      "let systemd start the exporter itself (a wrapper script must exec it)",
    );
  const n = /^\d{1,3}$/.test(count) ? Number(count) : Number.NaN;
  if (!(n >= 1 && n <= MAX_FDS)) throw new SystemdSocketError(`LISTEN_FDS: expected a number of sockets from 1 to ${MAX_FDS}`, CHECK_SOCKET_UNIT);
  return Array.from({ length: n }, (_, i) => FIRST_FD + i);
}
