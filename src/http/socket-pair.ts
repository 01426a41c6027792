// Two connected in-process stream ends, what one writes the other reads: an HTTP/1.1 connection without a kernel socket.

import { Duplex } from "node:stream";
import type { PeerCertificate, TLSSocket } from "node:tls";

/** One end. A write waits (backpressure) until the other end's reader asks for more. */
class PipeEnd extends Duplex {
  #peer: PipeEnd | undefined;
  /** The write callback held until the peer's reader wants more. */
  #writeDone: ((error?: Error | null) => void) | undefined;

  connect(peer: PipeEnd): void {
    this.#peer = peer;
  }

  override _read(): void {
    const peer = this.#peer;
    if (peer === undefined) return;
    const done = peer.#writeDone;
    peer.#writeDone = undefined;
    done?.();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const peer = this.#peer;
    if (peer === undefined || peer.destroyed) return callback(new PairClosedError());
    this.#writeDone = callback;
    peer.push(chunk);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#peer?.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const peer = this.#peer;
    if (peer !== undefined) {
      // As a closed TCP socket: what was sent still arrives, then the other end reads its end,
      // and a write waiting for this end's reader fails.
      peer.push(null);
      const waiting = peer.#writeDone;
      peer.#writeDone = undefined;
      waiting?.(new PairClosedError());
    }
    this.#writeDone = undefined;
    callback(error);
  }
}

export class PairClosedError extends Error {
  override readonly name = "PairClosedError";
  readonly code = "ERR_PAIR_CLOSED";
  constructor() {
    super("the other end of the in-process connection is closed");
  }
}

/**
 * The server's end of a bridged request: it answers for the real client's TLS connection, so a
 * check by address (basic auth's per-address fairness), by certificate or by `encrypted` judges
 * the real client, not the in-process pair.
 */
export class ClientFacingEnd extends PipeEnd {
  readonly #client: TLSSocket;
  readonly encrypted = true;
  readonly alpnProtocol = "h2";

  constructor(client: TLSSocket) {
    super();
    this.#client = client;
  }

  get remoteAddress(): string | undefined {
    return this.#client.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.#client.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.#client.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.#client.localAddress;
  }
  get localPort(): number | undefined {
    return this.#client.localPort;
  }
  get authorized(): boolean {
    return this.#client.authorized;
  }
  get authorizationError(): Error {
    return this.#client.authorizationError;
  }
  getPeerCertificate(detailed?: boolean): PeerCertificate | object {
    return detailed === true ? this.#client.getPeerCertificate(true) : this.#client.getPeerCertificate();
  }
  getProtocol(): string | null {
    return this.#client.getProtocol();
  }
}

/** A connected pair: the client's end for an HTTP/1.1 request, and the server's end standing for `client`. */
export function socketPair(client: TLSSocket): { clientEnd: Duplex; serverEnd: ClientFacingEnd } {
  const clientEnd = new PipeEnd();
  const serverEnd = new ClientFacingEnd(client);
  clientEnd.connect(serverEnd);
  serverEnd.connect(clientEnd);
  return { clientEnd, serverEnd };
}
