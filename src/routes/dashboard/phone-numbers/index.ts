// Phone numbers, under /dashboard/phone-numbers, one file per page operation: everyone sees the
// workspace's caller ids and where their inbound calls go; admins (settings:write) add, route and
// remove them. Every operation is the API's own (src/calls/phone-numbers.ts, the API's schemas).
import { screenRouter } from "../../../dashboard/routers";
import { registerCreatePhoneNumberPage } from "./create";
import { registerListPhoneNumbersPage } from "./list";
import { registerRemovePhoneNumberPage } from "./remove";
import { registerUpdatePhoneNumberPage } from "./update";

export function phoneNumberPages() {
  const app = screenRouter();
  registerListPhoneNumbersPage(app);
  registerCreatePhoneNumberPage(app);
  registerUpdatePhoneNumberPage(app);
  registerRemovePhoneNumberPage(app);
  return app;
}
