// Stripe's own webhook verifier, as a receiver of ours would use it (same t=…,v1=… scheme).
import Stripe from "stripe";

const signature = new Stripe("sk_test_unused").webhooks.signature;

/** true when Stripe's verifyHeader accepts the delivery (300 s tolerance), false when it throws. */
export function stripeAccepts(rawBody: string, header: string, secret: string): boolean {
  if (!signature) throw new Error("stripe.webhooks.signature is unavailable");
  try {
    return signature.verifyHeader(rawBody, header, secret, 300);
  } catch {
    return false;
  }
}
