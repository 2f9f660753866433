// What the sign-in pages share: the sign-in page's path inside the dashboard router (mounted at
// /dashboard).
import { SIGN_IN_PATH } from "../../../dashboard/session";

/** /sign-in: SIGN_IN_PATH, relative to the dashboard's root. */
export const signInPath = SIGN_IN_PATH.slice("/dashboard".length);
