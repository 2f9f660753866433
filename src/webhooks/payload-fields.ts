// The fields of a payload's `call` and `chat` objects, by name: the payload's schema
// (payload-schema.ts) declares one shape per name, and the `custom` mode's leaf paths (payload.ts)
// are built from them. A module of its own so that neither of those two imports the other.
export const CALL_FIELDS = [
  "id",
  "status",
  "direction",
  "durationSeconds",
  "fromNumber",
  "toNumber",
  "agentId",
  "agentName",
  "startedAt",
  "endedAt",
  "endedReason",
  "endedReasonCategory",
  "transfer",
  "analysisSkipped",
  "campaignId",
  "campaignRecipientId",
] as const;
export const CHAT_FIELDS = [
  "id",
  "status",
  "agentId",
  "agentName",
  "startedAt",
  "endedAt",
  "messageCount",
  "channelId",
  "endUserId",
  "endUserName",
] as const;
/** The fields of a campaign event's `campaign` object: the campaign as GET /v1/campaigns/{id} shows it. */
export const CAMPAIGN_FIELDS = [
  "id",
  "name",
  "agentId",
  "fromNumbers",
  "status",
  "pausedReason",
  "schedule",
  "retry",
  "maxCallsInFlight",
  "callsInFlight",
  "recipientCount",
  "counts",
  "metadata",
  "startedAt",
  "completedAt",
  "createdAt",
  "updatedAt",
] as const;
