/** Every /v1/channels operation's tag. */
export const tags = ["Channels"];
