/** @jsxImportSource hono/jsx */
// What the phone number pages share: the screen, with a form's errors and values when it comes back.
import type { Context } from "hono";
import { listAgentNames } from "../../../agents/service";
import { listPhoneNumbers } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { PhoneNumbersPage } from "../../../dashboard/phone-numbers/views";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import { carrierOf } from "../../../telephony/registry";

/** The most numbers the screen lists (a workspace has a handful). */
const LIST_LIMIT = 100;

export async function renderNumbers(
  c: Context<AppEnv>,
  extra: { errors?: FieldErrors; values?: Record<string, string>; notice?: string } = {},
  status: 200 | 400 | 409 = 200,
) {
  const { ctx, config } = c.var;
  const [shell, page, agents] = await Promise.all([
    shellOf(c, "Phone Numbers", "phone-numbers"),
    listPhoneNumbers({ ctx, input: { limit: LIST_LIMIT } }),
    listAgentNames({ ctx }),
  ]);
  const carrier = carrierOf(config);
  return c.html(
    <PhoneNumbersPage shell={shell} numbers={page.data} agents={agents} shared={config.TWILIO_FROM_NUMBERS} carrier={carrier} {...extra} />,
    status,
  );
}
