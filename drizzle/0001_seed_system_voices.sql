-- System voices: visible to every workspace, read-only. Fixed ids (UUID v7 layout,
-- timestamp 0) so they are stable across databases and sort after every owned voice.
INSERT INTO "voices" ("id", "organization_id", "name", "provider", "provider_voice_id", "language", "gender", "preview_url", "description") VALUES
('00000000-0000-7000-8000-000000000001', NULL, 'Alloy', 'openai', 'alloy', 'en', 'neutral', NULL, 'Balanced, versatile voice.'),
('00000000-0000-7000-8000-000000000002', NULL, 'Ash', 'openai', 'ash', 'en', 'male', NULL, 'Clear, warm male voice.'),
('00000000-0000-7000-8000-000000000003', NULL, 'Coral', 'openai', 'coral', 'en', 'female', NULL, 'Bright, friendly female voice.'),
('00000000-0000-7000-8000-000000000004', NULL, 'Echo', 'openai', 'echo', 'en', 'male', NULL, 'Calm male voice.'),
('00000000-0000-7000-8000-000000000005', NULL, 'Fable', 'openai', 'fable', 'en', 'neutral', NULL, 'Expressive storyteller voice.'),
('00000000-0000-7000-8000-000000000006', NULL, 'Nova', 'openai', 'nova', 'en', 'female', NULL, 'Energetic female voice.'),
('00000000-0000-7000-8000-000000000007', NULL, 'Onyx', 'openai', 'onyx', 'en', 'male', NULL, 'Deep male voice.'),
('00000000-0000-7000-8000-000000000008', NULL, 'Sage', 'openai', 'sage', 'en', 'female', NULL, 'Soft, measured female voice.'),
('00000000-0000-7000-8000-000000000009', NULL, 'Shimmer', 'openai', 'shimmer', 'en', 'female', NULL, 'Light, upbeat female voice.'),
('00000000-0000-7000-8000-000000000010', NULL, 'Rachel', 'elevenlabs', '21m00Tcm4TlvDq8ikWAM', 'en', 'female', NULL, 'ElevenLabs premade: calm narration.'),
('00000000-0000-7000-8000-000000000011', NULL, 'Adam', 'elevenlabs', 'pNInz6obpgDQGcFmaJgB', 'en', 'male', NULL, 'ElevenLabs premade: deep narration.')
ON CONFLICT ("id") DO NOTHING;
