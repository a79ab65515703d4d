/**
 * A local stand-in for Slack's Socket Mode endpoint (the `ws` package): the fake Web API answers
 * `apps.connections.open` with this server's ws:// URL; each connection gets `hello`; tests
 * deliver envelopes (`slash_commands`, `interactive`) to a chosen connection and get back the
 * acknowledgement the bot sent with the envelope's id, which must come within Slack's 3 s.
 * It can also ask a connection to refresh (`disconnect`) or drop its TCP connection outright.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

/** Slack retries an envelope that was not acknowledged within this time. */
export const ACK_DEADLINE_MS = 3_000;

export interface Envelope {
  envelope_id: string;
  type: 'slash_commands' | 'interactive' | 'events_api';
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

export interface SocketAck {
  envelopeId: string;
  /** The ack's payload: {} for a plain ack, the view errors or the response for a rich one. */
  payload: Record<string, unknown>;
  /** Which connection (in the order they opened, from 0) acknowledged it. */
  connection: number;
  elapsedMs: number;
}

export class EnvelopeNotAcknowledged extends Error {
  constructor(readonly envelopeId: string) {
    super(`envelope ${envelopeId} was not acknowledged within ${ACK_DEADLINE_MS} ms`);
  }
}

interface Connection {
  id: number;
  socket: WebSocket;
}

export class SocketModeServer extends EventEmitter<{ connection: [number]; close: [number]; ack: [SocketAck] }> {
  /** Every connection ever opened, by id; open ones are in `open`. */
  readonly connections: Connection[] = [];
  readonly acks: SocketAck[] = [];
  /** Envelope ids delivered and not acknowledged in time. */
  readonly missed: string[] = [];
  private readonly waiting = new Map<
    string,
    { connection: number; sentAt: number; settle: (ack: SocketAck | undefined) => void }
  >();
  private pingTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly server: WebSocketServer) {
    super();
  }

  static async start(): Promise<SocketModeServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    const server = new SocketModeServer(wss);
    wss.on('connection', (socket) => server.accept(socket));
    // Slack pings every few seconds; the client reconnects when pings stop for 30 s.
    server.pingTimer = setInterval(() => server.openSockets().forEach(({ socket }) => socket.ping()), 5_000).unref();
    return server;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/link/?ticket=${randomUUID()}`;
  }

  openSockets(): Connection[] {
    return this.connections.filter((c) => c.socket.readyState === c.socket.OPEN);
  }

  /** Resolves when `count` connections are open at once. */
  async waitForOpen(count: number): Promise<void> {
    while (this.openSockets().length < count) await new Promise((resolve) => this.once('connection', resolve));
  }

  /** Resolves when a connection opened after connection number `after` is open (a reconnect). */
  async waitForConnectionAfter(after: number): Promise<number> {
    const found = this.openSockets().find((c) => c.id > after);
    if (found) return found.id;
    return new Promise((resolve) => {
      const onConnection = (id: number) => {
        if (id <= after) return;
        this.off('connection', onConnection);
        resolve(id);
      };
      this.on('connection', onConnection);
    });
  }

  /**
   * Sends an envelope on a connection (the first open one unless told) and resolves with its
   * acknowledgement; rejects with EnvelopeNotAcknowledged after 3 s without one.
   */
  deliver(
    type: Envelope['type'],
    payload: Record<string, unknown>,
    options: { connection?: number; envelopeId?: string; retryAttempt?: number } = {},
  ): Promise<SocketAck> {
    const connection = options.connection === undefined ? this.openSockets()[0] : this.connections[options.connection];
    if (!connection || connection.socket.readyState !== connection.socket.OPEN)
      return Promise.reject(new Error('no open Socket Mode connection to deliver on'));
    const envelope: Envelope = {
      envelope_id: options.envelopeId ?? randomUUID(),
      type,
      payload,
      accepts_response_payload: type === 'slash_commands' || payload.type === 'view_submission',
      ...(options.retryAttempt ? { retry_attempt: options.retryAttempt, retry_reason: 'timeout' } : {}),
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(undefined), ACK_DEADLINE_MS);
      const settle = (ack: SocketAck | undefined) => {
        clearTimeout(timer);
        this.waiting.delete(envelope.envelope_id);
        if (ack) resolve(ack);
        else {
          this.missed.push(envelope.envelope_id);
          reject(new EnvelopeNotAcknowledged(envelope.envelope_id));
        }
      };
      this.waiting.set(envelope.envelope_id, { connection: connection.id, sentAt: performance.now(), settle });
      connection.socket.send(JSON.stringify(envelope));
    });
  }

  /** Sends Slack's `disconnect` message (the connection is about to be recycled). */
  requestRefresh(connection: number, reason = 'refresh_requested'): void {
    this.connections[connection]?.socket.send(
      JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'local' } }),
    );
  }

  /** Drops the TCP connection with no close handshake, as a network failure would. */
  drop(connection: number): void {
    this.connections[connection]?.socket.terminate();
  }

  async close(): Promise<void> {
    clearInterval(this.pingTimer);
    for (const { socket } of this.connections) socket.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    const id = this.connections.length;
    this.connections.push({ id, socket });
    socket.on('message', (data) => this.onMessage(id, rawText(data)));
    socket.on('close', () => this.emit('close', id));
    socket.on('error', () => undefined);
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.openSockets().length,
        debug_info: { host: 'local', approximate_connection_time: 3600 },
        connection_info: { app_id: 'A0APP' },
      }),
    );
    this.emit('connection', id);
  }

  private onMessage(connection: number, text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (typeof message.envelope_id !== 'string') return;
    const waiting = this.waiting.get(message.envelope_id);
    const payload =
      message.payload && typeof message.payload === 'object' ? (message.payload as Record<string, unknown>) : {};
    const ack: SocketAck = {
      envelopeId: message.envelope_id,
      payload,
      connection,
      elapsedMs: waiting ? performance.now() - waiting.sentAt : NaN,
    };
    this.acks.push(ack);
    this.emit('ack', ack);
    waiting?.settle(ack);
  }
}

/** A WebSocket message as text: ws hands over a Buffer, an ArrayBuffer or fragments. */
function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}
