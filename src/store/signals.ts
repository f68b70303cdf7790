import type { StoreConnection } from "./keyv.js";

/**
 * Messages between the processes that share the store, for what is remembered per process but
 * matters to all (which Homes people look at): Redis pub/sub on redis, where every process hears
 * every message, its own included. A message is heard by the processes connected when it is sent:
 * one sent while the store is away, or failing over, is lost. On sqlite the bot is one process (or
 * several on one machine, which do not hear each other): messages stay within the process.
 */
export interface Signals {
  publish(channel: string, message: string): Promise<void>;
  /** The function returned stops `listener`. */
  subscribe(channel: string, listener: (message: string) => void): () => void;
}

export function openSignals(connection: StoreConnection): Signals {
  if (connection.kind === "redis") {
    const { link } = connection;
    return {
      publish: (channel, message) => link.publish(channel, message),
      subscribe(channel, listener) {
        link.subscribe(channel, listener);
        return () => link.unsubscribe(channel, listener);
      },
    };
  }
  const channels = new Map<string, Set<(message: string) => void>>();
  return {
    async publish(channel, message) {
      // Heard after the sender's turn, as a message from the store would be.
      for (const listener of channels.get(channel) ?? []) queueMicrotask(() => listener(message));
    },
    subscribe(channel, listener) {
      const listeners = channels.get(channel) ?? new Set();
      channels.set(channel, listeners);
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
