/**
 * Consumers are idempotent: before acting on an event they claim it in their own database.
 * The claim is an insert with a unique _id, so a redelivered event is recognised.
 * A handler that fails releases its claim so the redelivery can run it again.
 */
export interface ProcessedEvents {
  /** True when the event was claimed now; false when it was already processed. */
  claim(consumer: string, eventId: string): Promise<boolean>;
  release(consumer: string, eventId: string): Promise<void>;
}

export function idempotent<E extends { id: string }>(
  store: ProcessedEvents,
  consumer: string,
  handler: (event: E) => Promise<void>,
) {
  return async (event: E): Promise<void> => {
    if (!(await store.claim(consumer, event.id))) return;
    try {
      await handler(event);
    } catch (e) {
      await store.release(consumer, event.id);
      throw e;
    }
  };
}
