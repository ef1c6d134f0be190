-- Up Migration
-- Transactional outbox: a use case inserts its events here in the same transaction as the change
-- they describe; the relay publishes them to JetStream and deletes them (FOR UPDATE SKIP LOCKED,
-- so replicas share the work without publishing a row twice at once).
CREATE TABLE outbox (
  seq bigserial PRIMARY KEY,
  event jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Idempotent consumers: one row per (consumer, event) handled.
CREATE TABLE processed_events (
  consumer text NOT NULL,
  event_id text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

-- Down Migration
DROP TABLE processed_events;
DROP TABLE outbox;
