import type { JanitorCommand, JanitorReply } from '@baas/common';

/** One replica at a time: a lease that expires on its own if its holder dies. */
export interface Lease {
  acquire(): Promise<boolean>;
  /** Extends the lease only if we still hold it (fenced by our token). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/** Sends a command to the service that owns the data, and waits for its reply. */
export interface CommandSender {
  send(subject: string, command: JanitorCommand): Promise<JanitorReply>;
}
