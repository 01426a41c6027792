// The connections one listener holds, and which gives way at the cap: any that is not being answered.

import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { DropReason } from "../metrics/self.js";

export interface ConnectionEvents {
  opened(): void;
  closed(): void;
  dropped(reason: DropReason): void;
  writeTimedOut(): void;
}

interface Connection {
  readonly socket: Socket;
  answering: number;
  /** The body of the request being read: not in by its deadline, the connection goes. One at a time on HTTP/1.1. */
  reading?: NodeJS.Timeout | undefined;
}

const peer = (socket: Socket): string | undefined => (socket.remotePort === undefined ? undefined : `${socket.remoteAddress}|${socket.remotePort}`);

export class ConnectionCap {
  readonly #open = new Set<Connection>();
  /** Not being answered, in the order each last completed a request (or was accepted): the first gives way. */
  readonly #waiting = new Set<Connection>();
  /** Under the socket the HTTP layer sees (over TLS, the TLS socket once secured); `#handshaking` finds it by peer address. */
  readonly #bySocket = new WeakMap<Socket, Connection>();
  readonly #handshaking = new Map<string, Connection>();

  constructor(
    readonly max: number,
    readonly tls: boolean,
    readonly events: ConnectionEvents | undefined,
  ) {}

  /** A newly accepted socket: at the cap, the longest-waiting connection not being answered is closed for it, else it is. */
  accept(socket: Socket): void {
    if (this.#open.size >= this.max) {
      const oldest = this.#waiting.values().next().value;
      this.events?.dropped(oldest === undefined ? "cap" : "idle");
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      this.#drop(oldest);
      oldest.socket.destroy();
    }
    const connection: Connection = { socket, answering: 0 };
    this.#open.add(connection);
    this.#bySocket.set(socket, connection);
    const key = this.tls ? peer(socket) : undefined;
    if (key !== undefined) this.#handshaking.set(key, connection);
    // A TLS connection on a Unix socket has no peer address to know it by once secured: never evicted, its timeouts bound it.
    if (!this.tls || key !== undefined) this.#waiting.add(connection);
    this.events?.opened();
    socket.once("close", () => {
      if (this.#open.has(connection)) this.#drop(connection);
      if (key !== undefined && this.#handshaking.get(key) === connection) this.#handshaking.delete(key);
      this.events?.closed();
    });
  }

  /** A TLS socket whose handshake ended: its requests count on the connection it was accepted as. */
  secured(tlsSocket: TLSSocket): void {
    const key = peer(tlsSocket);
    const connection = key === undefined ? undefined : this.#handshaking.get(key);
    if (connection === undefined || key === undefined) return;
    this.#handshaking.delete(key);
    this.#bySocket.set(tlsSocket, connection);
  }

  /** A request's head is in: not evicted until answered. `bodyIn` is asked again at the deadline: a GET completes after 'request'. */
  began(socket: Socket, readTimeoutMs: number, bodyIn: () => boolean): Connection {
    const connection = this.#bySocket.get(socket) ?? { socket, answering: 0 };
    this.#bySocket.set(socket, connection);
    this.#waiting.delete(connection);
    connection.answering++;
    clearTimeout(connection.reading);
    connection.reading = bodyIn()
      ? undefined
      : setTimeout(() => {
          if (connection.socket.destroyed || bodyIn()) return;
          this.events?.dropped("read_timeout");
          connection.socket.destroy();
        }, readTimeoutMs);
    return connection;
  }

  read(connection: Connection): void {
    clearTimeout(connection.reading);
    connection.reading = undefined;
  }

  /** An answer is done; with none left, the connection waits last in line. */
  answered(connection: Connection): void {
    connection.answering--;
    if (connection.answering === 0 && this.#open.has(connection)) this.#waiting.add(connection);
  }

  /** Every accepted socket, the ones still in their TLS handshake included (Node's closeAllConnections knows only HTTP ones). */
  destroyAll(): void {
    for (const connection of this.#open) connection.socket.destroy();
  }

  #drop(connection: Connection): void {
    this.#open.delete(connection);
    this.#waiting.delete(connection);
    this.read(connection);
  }
}
