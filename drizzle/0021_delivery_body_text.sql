-- A delivery's body is kept as the exact text sent (and signed), not as jsonb, whose reading back
-- reorders keys and respaces: every attempt of a delivery now sends the same bytes. Deliveries
-- written before keep jsonb's rendering of their payload, which their later attempts send.
ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" SET DATA TYPE text USING "payload"::text;
