-- Web calls have no phone leg: their direction is `web`, no longer `inbound` (docs/calls.md, "Direction").
UPDATE "calls" SET "direction" = 'web' WHERE "type" = 'web' AND "direction" <> 'web';
