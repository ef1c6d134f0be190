import { randomBytes } from 'node:crypto';

/**
 * Reads delivered mail back from Mailpit's HTTP API. Every test uses its own recipient address
 * and searches by it, so tests running at the same time never see each other's mail.
 */
export interface MailpitAddress {
  Name: string;
  Address: string;
}

export interface MailpitMessage {
  ID: string;
  MessageID: string;
  From: MailpitAddress;
  To: MailpitAddress[];
  Cc: MailpitAddress[] | null;
  Bcc: MailpitAddress[] | null;
  Subject: string;
  HTML: string;
  Text: string;
}

export function uniqueAddress(tag = 'mail'): string {
  return `${tag}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}@example.test`;
}

export class Mailpit {
  constructor(readonly baseUrl: string) {}

  private async json<T>(path: string): Promise<T> {
    const r = await fetch(`${this.baseUrl}${path}`);
    if (!r.ok) throw new Error(`mailpit ${path}: ${r.status}`);
    return (await r.json()) as T;
  }

  async search(query: string): Promise<Array<{ ID: string; Subject: string }>> {
    const r = await this.json<{ messages: Array<{ ID: string; Subject: string }> }>(
      `/api/v1/search?query=${encodeURIComponent(query)}&limit=50`,
    );
    return r.messages ?? [];
  }

  /** Messages to this address (newest first). */
  async to(address: string): Promise<Array<{ ID: string; Subject: string }>> {
    return this.search(`to:"${address}"`);
  }

  async message(id: string): Promise<MailpitMessage> {
    return this.json<MailpitMessage>(`/api/v1/message/${id}`);
  }

  async headers(id: string): Promise<Record<string, string[]>> {
    return this.json<Record<string, string[]>>(`/api/v1/message/${id}/headers`);
  }

  async raw(id: string): Promise<string> {
    const r = await fetch(`${this.baseUrl}/api/v1/message/${id}/raw`);
    return r.text();
  }

  /** Waits for `count` messages to the address and returns the newest in full. */
  async waitFor(address: string, opts: { count?: number; timeoutMs?: number } = {}): Promise<MailpitMessage> {
    const count = opts.count ?? 1;
    const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
    for (;;) {
      const found = await this.to(address);
      if (found.length >= count && found[0]) return this.message(found[0].ID);
      if (Date.now() > deadline)
        throw new Error(`no mail to ${address} within the timeout (found ${found.length})`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  /** Asserts nothing arrives for the address within a short window. */
  async countAfter(address: string, waitMs: number): Promise<number> {
    await new Promise((r) => setTimeout(r, waitMs));
    return (await this.to(address)).length;
  }
}
