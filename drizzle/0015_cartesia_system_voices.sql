-- Cartesia (Sonic) system voices, like the ElevenLabs ones of 0001: fixed ids, visible to every
-- workspace, read-only. Katie is one of Cartesia's recommended stable voices for voice agents.
INSERT INTO "voices" ("id", "organization_id", "name", "provider", "provider_voice_id", "language", "gender", "preview_url", "description") VALUES
('00000000-0000-7000-8000-000000000012', NULL, 'Katie', 'cartesia', 'f786b574-daa5-4673-aa0c-cbe3e8534c02', 'en', 'female', NULL, 'Cartesia Sonic: friendly, stable; made for voice agents.'),
('00000000-0000-7000-8000-000000000013', NULL, 'Barbershop Man', 'cartesia', 'a0e99841-438c-4a64-b679-ae501e7d6091', 'en', 'male', NULL, 'Cartesia Sonic: warm conversational male voice.')
ON CONFLICT ("id") DO NOTHING;
